"""The exceptions ufsel raises beyond Python's and scikit-learn's."""

from __future__ import annotations

__all__ = ["DenseCopyTooLargeError", "NumericalError"]


class NumericalError(ValueError, ArithmeticError):
    """An iterative method produced NaN/inf or diverged.

    Subclasses ``ValueError`` so that callers catching bad-input errors catch it.
    """


class DenseCopyTooLargeError(ValueError):
    """Sparse input whose dense copy would exceed ``max_dense_bytes`` (:func:`ufsel.set_config`).

    Raised by a method whose mathematics needs dense data; a selector's ``fit`` adds
    the names of the selectors that work on sparse data to the message.
    """
