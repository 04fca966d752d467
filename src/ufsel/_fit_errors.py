"""How errors inside a selector's fit reach the user.

:func:`numerical_guard` turns floating-point failures and building-block errors into
one-line messages that name the selector; :func:`warn_not_converged` is the one
ConvergenceWarning of the iterative selectors. Both are used through
:class:`~ufsel.base.BaseSelector` (and imported from :mod:`ufsel.base` by selectors).
"""

from __future__ import annotations

import contextlib
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from .exceptions import DenseCopyTooLargeError, MemoryLimitError, NumericalError
from .utils._tags import selectors_with

__all__ = ["numerical_guard", "sparse_native_names", "warn_not_converged"]


@contextlib.contextmanager
def numerical_guard(owner):
    """Turn NumPy overflow / invalid-operation errors inside a fit into :class:`NumericalError`.

    Inside the block, an operation that overflows to inf or produces NaN
    (``inf - inf``, ``0 / 0``, ``sqrt`` of a negative number) raises instead of
    warning and silently propagating; selectors that divide by quantities that
    may vanish use ``np.divide(..., where=...)`` or a local ``np.errstate``.
    A ``LinAlgError`` (singular system) becomes a :class:`NumericalError` too,
    and a ``ValueError`` raised by a shared building block (graph, linalg)
    that does not name the selector is re-raised with its name in front; a
    :class:`~ufsel.exceptions.DenseCopyTooLargeError` also names the selectors
    that work on sparse data. A ``MemoryError`` (an allocation the memory check did
    not foresee) becomes a one-line :class:`~ufsel.exceptions.MemoryLimitError`.
    """
    try:
        with np.errstate(over="raise", invalid="raise"):
            yield
    except NumericalError:
        raise
    except DenseCopyTooLargeError as exc:
        message = str(exc) if owner in str(exc) else f"{owner}: {exc}"
        raise DenseCopyTooLargeError(
            f"{message} Selectors that work on sparse data: {', '.join(sparse_native_names())}."
        ) from exc
    except np.linalg.LinAlgError as exc:
        raise NumericalError(
            f"{owner}: a linear-algebra step failed during fit ({exc}). The data may be "
            "degenerate or badly scaled (standardise the features), or a regularisation "
            "parameter may be too small."
        ) from exc
    except ValueError as exc:
        if owner in str(exc):
            raise
        # an error from a shared building block: say which selector it stopped
        try:
            renamed = type(exc)(f"{owner}: {exc}")
        except Exception:  # pragma: no cover - exotic exception signature
            renamed = ValueError(f"{owner}: {exc}")
        raise renamed from exc
    except MemoryError as exc:
        if isinstance(exc, MemoryLimitError):
            raise
        detail = str(exc).strip().splitlines()[0] if str(exc).strip() else "an allocation failed"
        raise MemoryLimitError(
            f"{owner} ran out of memory during fit ({detail}), beyond the estimate it was "
            "checked with before the work (ufsel.utils.estimate_fit_memory). Select from "
            "fewer features or samples, or use graph='anchor' where the selector has it."
        ) from None
    except FloatingPointError as exc:
        raise NumericalError(
            f"{owner}: a floating-point operation failed during fit ({exc}); the result "
            "would be NaN or infinite. The data may be badly scaled (standardise the "
            "features) or a parameter may be extreme (move it towards its default)."
        ) from exc


def sparse_native_names():
    """The registered selectors that never form a dense copy of sparse input."""
    return [cls.__name__ for cls in selectors_with("sparse_native").values()]


def warn_not_converged(owner, max_iter, last_change, tol):
    """Emit the ConvergenceWarning shared by all iterative selectors."""
    warnings.warn(
        f"{owner} did not converge within max_iter={max_iter} iterations "
        f"(last relative objective change {last_change:.3g} > tol={tol:g}). "
        "Increase max_iter or tol.",
        ConvergenceWarning,
        stacklevel=3,
    )
