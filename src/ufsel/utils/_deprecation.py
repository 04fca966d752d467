"""The old name of a renamed fitted attribute, kept for a deprecation period."""

from __future__ import annotations

import warnings

__all__ = ["renamed_attribute"]


class renamed_attribute:  # noqa: N801 - used like ``property``
    """A class attribute that keeps a fitted attribute's old name working.

    ``components_ = renamed_attribute("W_")`` in a class body: reading
    ``est.components_`` returns ``est.W_`` with a FutureWarning, and assigning it
    (code of the class that still uses the old name) sets ``W_``. Before ``fit`` the
    old name is missing like the new one, so ``hasattr`` and ``check_is_fitted``
    behave as for any fitted attribute.

    Parameters
    ----------
    new_name : str
        The attribute's name now.
    """

    def __init__(self, new_name):
        self.new_name = new_name
        self.old_name = None

    def __set_name__(self, owner, name):
        self.old_name = name

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        if self.new_name not in vars(obj):
            raise AttributeError(
                f"{type(obj).__name__!r} object has no attribute {self.old_name!r}")
        warnings.warn(
            f"{type(obj).__name__}.{self.old_name} is deprecated and will be removed: it "
            f"was renamed {self.new_name}.", FutureWarning, stacklevel=2)
        return vars(obj)[self.new_name]

    def __set__(self, obj, value):
        setattr(obj, self.new_name, value)
