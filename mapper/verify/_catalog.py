"""The registered checks, imported in the order they run within a phase."""

# isort: off
from . import _checks_read as _checks_read
from . import _checks_write as _checks_write
from . import _checks_shapes as _checks_shapes
from . import _checks_fields as _checks_fields
from . import _checks_createonly as _checks_createonly
from . import _checks_normalize as _checks_normalize
from . import _checks_codecs as _checks_codecs
from . import _checks_nullable as _checks_nullable
from . import _checks_refs as _checks_refs
from . import _checks_query as _checks_query
from . import _checks_feed as _checks_feed
from . import _checks_ops as _checks_ops
from . import _checks_opref as _checks_opref
from . import _checks_delete as _checks_delete
from . import _checks_posted as _checks_posted
# isort: on

MODULES = (
    _checks_read, _checks_write, _checks_shapes, _checks_fields, _checks_createonly,
    _checks_normalize, _checks_codecs, _checks_nullable, _checks_refs, _checks_query, _checks_feed,
    _checks_ops, _checks_opref, _checks_delete, _checks_posted,
)  # fmt: skip
