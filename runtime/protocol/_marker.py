"""The marker of a verification run's own records, one spelling for both halves.

`a2map verify` writes it, with the run's id, into a text field of every record it
creates; the runtime's change feed leaves such records out: they are the verifier's
traffic, not the app's news.
"""

VERIFY_MARK = "a2v-"
