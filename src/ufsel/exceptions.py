"""The exceptions ufsel raises beyond Python's and scikit-learn's."""

from __future__ import annotations

__all__ = ["DenseCopyTooLargeError", "MemoryLimitError", "NumericalError"]


class NumericalError(ValueError, ArithmeticError):
    """An iterative method produced NaN/inf or diverged.

    Subclasses ``ValueError`` so that callers catching bad-input errors catch it.
    """


class DenseCopyTooLargeError(ValueError):
    """Sparse input whose dense copy would exceed ``max_dense_bytes`` (:func:`ufsel.set_config`).

    Raised by a method whose mathematics needs dense data; a selector's ``fit`` adds
    the names of the selectors that work on sparse data to the message.
    """


class MemoryLimitError(ValueError, MemoryError):
    """A fit whose estimated peak memory exceeds ``max_fit_bytes`` (:func:`ufsel.set_config`).

    Raised before any work (:func:`ufsel.utils.check_fit_memory`), with a one-line
    message: the estimate, its largest term, the limit, the setting that changes it
    and what fits instead. A ``ValueError``, as every refusal of an input ufsel
    makes (the input is too large for this machine, as it could be too small for a
    method), and a ``MemoryError``, so that code written for the error the fit would
    otherwise have raised part-way catches it too.
    """
