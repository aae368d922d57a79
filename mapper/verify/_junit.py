"""JUnit XML for CI systems: one test case per claim, failures with their evidence."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from ._report import Report


def junit_xml(report: Report) -> str:
    suite = ET.Element(
        "testsuite",
        name=f"a2map verify {report.app}",
        tests=str(len(report.results)),
        failures=str(report.count("failed")),
        errors=str(report.count("error")),
        skipped=str(report.count("unproven")),
        time=f"{report.seconds:.3f}",
        timestamp=report.started.strftime("%Y-%m-%dT%H:%M:%S"),
    )
    for result in report.results:
        case = ET.SubElement(
            suite,
            "testcase",
            classname=f"{report.app}.{result.entity or 'mapping'}",
            name=f"{result.claim} [{result.check}]",
            time=f"{result.seconds:.3f}",
        )
        failure = result.failure
        if result.outcome == "failed" and failure is not None:
            node = ET.SubElement(case, "failure", type=type(failure).__name__)
            node.set("message", f"{failure.title} ({failure.wrong} is wrong)")
            lines = [
                f"claim:    {result.text}",
                f"wrong:    the {failure.wrong}",
                f"why:      {failure.message}",
                f"request:  {failure.request or '-'}",
                f"response: {failure.response or '-'}",
                f"change:   {failure.fix}",
            ]
            node.text = "\n".join(lines)
        elif result.outcome in ("failed", "error"):
            ET.SubElement(case, "error", message=result.note or "error").text = result.note
        elif result.outcome == "unproven":
            what = "not run" if result.excluded else "not proven"
            ET.SubElement(case, "skipped", message=f"{what}: {result.note or 'no reason'}")
        elif result.note:
            ET.SubElement(case, "system-out").text = result.note
    root = ET.Element("testsuites", name="a2map verify")
    root.append(suite)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
