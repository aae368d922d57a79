"""What can go wrong in a verification, in two families that never mix.

    VerificationFailure (AssertionError)   a claim of the mapping, disproved by the live upstream
    ├─ UpstreamAtFault                      the foreign API misbehaves
    │    WriteNotPersisted, ReadAfterDeleteSucceeded, DeleteFoundNothing, MissingRecordFound,
    │    ListDuplicates, ListMissingRecords, TotalMismatch, LinkOutsideUpstream,
    │    GetDisagreesWithList, UpstreamMisbehaved
    └─ MappingAtFault                       the foreign API works, but not as the mapping says
         CredentialsRefused, FilterIgnored, FilterRejected, FilterDropsRecords, FilterTooWide,
         SortIgnored, SortMisordered, CreateRefused, UpdateRefused, UndeclaredRequired,
         RequiredNotEnforced, ReadOnlyFieldWritable, EnumNotClosed, EnumValueRefused,
         FieldTypeMismatch, NormalizationNotApplied, GetNotFound, DanglingRef,
         DeleteEffectMismatch, WriteNameIgnored, ClientIdIgnored, FindByNotUnique,
         WriteAnswerMissing,
         OperationRefused, OperationResponseShape, ReadOnlyOperationWrote

    VerifyError (Exception)                 our mapping file or this tool is wrong; no claim tested
    ├─ MappingUnusable                      the file does not load, a variable is unset
    ├─ CannotSynthesize                     no value the guard accepts can be made for a field
    └─ UpstreamUnreachable                  nothing can be proven: exit 2

    NotProven                               a claim this run could not exercise, with the reason;
    │                                       a write or operation so is withheld from serving
    ├─ Excluded                             not run by the run's options (--read-only, a
    │                                       destructive operation): listed apart
    └─ NotRouted                            the upstream answers 404 to a route its own spec
                                            declares: not implemented there

    NotAClaim                               the subject is nothing the runtime relies on

Every failure names its claim (set by the runner), the request and the response
that disproved it (already sanitized), whether the foreign API or the mapping is
wrong, and the change to make to the mapping, as text and, where it can be
applied mechanically, as a `Correction` for `--write-corrected`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Literal

Wrong = Literal["upstream", "mapping"]
PathPart = str | int


@dataclass(frozen=True, slots=True)
class Correction:
    """One mechanical change to the mapping document, at a path of keys and indexes."""

    path: tuple[PathPart, ...]
    action: Literal["remove", "set", "remove-item"]
    value: Any = None

    def describe(self) -> str:
        where = ".".join(str(p) for p in self.path)
        if self.action == "remove":
            return f"remove {where}"
        if self.action == "remove-item":
            return f"remove {self.value!r} from {where}"
        return f"set {where}: {self.value!r}"

    def as_dict(self) -> dict[str, Any]:
        return {"path": list(self.path), "action": self.action, "value": self.value}


class VerificationFailure(AssertionError):
    """A claim the live upstream disproved."""

    wrong: ClassVar[Wrong] = "upstream"
    title: ClassVar[str] = "claim disproved"

    def __init__(
        self,
        message: str,
        *,
        fix: str,
        request: str | None = None,
        response: str | None = None,
        corrections: tuple[Correction, ...] = (),
        narrow: tuple[str, tuple[str, ...]] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.fix = fix
        self.request = request
        self.response = response
        self.corrections = corrections
        # What a refusal withholds when it is less than the check's whole scope: one
        # write (create, update, delete), and of it only these fields when named.
        self.narrow = narrow

    def as_dict(self) -> dict[str, Any]:
        return {
            "type": type(self).__name__,
            "title": self.title,
            "wrong": self.wrong,
            "message": self.message,
            "request": self.request,
            "response": self.response,
            "fix": self.fix,
            "corrections": [c.as_dict() for c in self.corrections],
        }


class UpstreamAtFault(VerificationFailure):
    wrong = "upstream"


class MappingAtFault(VerificationFailure):
    wrong = "mapping"


# The foreign API misbehaves.
class WriteNotPersisted(UpstreamAtFault):
    title = "a write was accepted but not stored"


class ReadAfterDeleteSucceeded(UpstreamAtFault):
    title = "a deleted record can still be read"


class DeleteFoundNothing(UpstreamAtFault):
    title = "a record just created could not be deleted (404)"


class MissingRecordFound(UpstreamAtFault):
    title = "a record that does not exist can be read"


class ListDuplicates(UpstreamAtFault):
    title = "paging repeats records"


class ListMissingRecords(UpstreamAtFault):
    title = "paging skips records"


class TotalMismatch(UpstreamAtFault):
    title = "the reported total disagrees with the records"


class LinkOutsideUpstream(UpstreamAtFault):
    title = "the upstream sent a link outside its base URL"


class GetDisagreesWithList(UpstreamAtFault):
    title = "a record reads differently by id than in the listing"


class UpstreamMisbehaved(UpstreamAtFault):
    title = "the upstream failed or answered unexpectedly"


# The foreign API works, but not as the mapping says.
class CredentialsRefused(MappingAtFault):
    title = "the upstream refused the configured credentials"


class FilterIgnored(MappingAtFault):
    title = "a pushed-down filter parameter is ignored"


class FilterRejected(MappingAtFault):
    title = "the upstream refused a pushed-down filter parameter"


class FilterDropsRecords(MappingAtFault):
    title = "a pushed-down filter drops records the protocol's filter keeps"


class FilterTooWide(MappingAtFault):
    title = "a pushed-down filter keeps records the protocol's filter drops"


class SortIgnored(MappingAtFault):
    title = "a pushed-down sort is ignored"


class SortMisordered(MappingAtFault):
    title = "a pushed-down sort orders differently from the protocol"


class CreateRefused(MappingAtFault):
    title = "the upstream refused a create the guard accepts"


class UpdateRefused(MappingAtFault):
    title = "the upstream refused an update the guard accepts"


class UndeclaredRequired(MappingAtFault):
    title = "the upstream requires a field the mapping calls optional"


class RequiredNotEnforced(MappingAtFault):
    title = "a field the mapping calls required is optional upstream"


class ReadOnlyFieldWritable(MappingAtFault):
    title = "a field the mapping calls read-only is stored when written"


class PathNotFound(MappingAtFault):
    title = "the upstream answers 404 at the mapping's listing path"


class CreateOnlyFieldUpdatable(MappingAtFault):
    title = "a field the mapping calls create-only is stored when updated"


class UpdateOnlyFieldCreatable(MappingAtFault):
    title = "a field the mapping calls update-only is stored when created"


class EnumNotClosed(MappingAtFault):
    title = "a closed enum accepts values outside its set"


class EnumValueRefused(MappingAtFault):
    title = "the upstream refuses a declared enum value"


class FieldTypeMismatch(MappingAtFault):
    title = "stored values do not have the declared type or format"


class NormalizationNotApplied(MappingAtFault):
    title = "the upstream does not normalise a value as the mapping declares"


class GetNotFound(MappingAtFault):
    title = "a listed record cannot be read by id"


class DanglingRef(MappingAtFault):
    title = "a reference names no record of its declared entity"


class DeleteEffectMismatch(MappingAtFault):
    title = "deleting a record affects references differently from upstreamOnDelete"


class WriteNameIgnored(MappingAtFault):
    title = "a field written by its writeSource is not stored"


class ClientIdIgnored(MappingAtFault):
    title = "the upstream gave a created record another id than the one sent"


class WriteAnswerMissing(MappingAtFault):
    title = "a write's answer does not hold the record where write.answer says"


class FindByNotUnique(MappingAtFault):
    title = "the field a create is found by does not single out the record created"


class NullableMismatch(MappingAtFault):
    title = "the upstream treats a null differently from nullable"


class RefCheckMismatch(MappingAtFault):
    title = "the upstream treats a missing record differently from upstreamChecksRef"


class OperationRefused(MappingAtFault):
    title = "the upstream refused an operation called as declared"


class OperationResponseShape(MappingAtFault):
    title = "an operation's answer lacks its declared response"


class ReadOnlyOperationWrote(MappingAtFault):
    title = "a read-only operation changed its record"


class VerifyError(Exception):
    """Our mapping file or this tool is wrong; nothing about the upstream was learned."""


class MappingUnusable(VerifyError):
    pass


class CannotSynthesize(VerifyError):
    pass


class UpstreamUnreachable(VerifyError):
    pass


class NotProven(Exception):
    """The run could not exercise the claim: neither a pass nor a disproof, reported as
    `not proven` with its reason. A write, delete or operation left unproven is withheld
    from serving (for a write, only the write `op` names, when it names one), and the
    run is at best partly verified.
    """

    def __init__(
        self, reason: str, *, op: str | None = None, entity: str | None = None,
        covered_by: str | None = None,
    ) -> None:  # fmt: skip
        super().__init__(reason)
        self.reason = reason
        self.op = op
        # The entity whose write is withheld, when not the claim's own
        self.entity = entity
        # A write claim of the same entity whose failure is why: when it failed, what
        # it withholds is what this claim covers (no second, wider withholding)
        self.covered_by = covered_by


class Excluded(NotProven):
    """Not run by the run's own choice (`--read-only`; a destructive operation without
    `--include-destructive`, which stays served behind its human approval): listed
    apart, it neither withholds nor lowers the outcome."""


class NotAClaim(Exception):
    """What the subject names is no claim the runtime relies on (a filter the runtime
    evaluates itself): nothing to prove, and nothing is reported."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Learned(NotAClaim):
    """The mapping makes no claim here, but the run saw what the upstream does: reported
    as learned, never as passed, and `--write-corrected` records it."""

    def __init__(self, reason: str, corrections: tuple[Correction, ...]) -> None:
        super().__init__(reason)
        self.corrections = corrections


class NotRouted(NotProven):
    """The upstream answers 404 to a route its own spec declares: it does not implement it.

    Not a disproof of the mapping, which says what the spec says.
    """
