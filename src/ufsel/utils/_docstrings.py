"""Docstring text shared by the selectors, written once.

A line of a class docstring that holds only ``{name}`` (indented like the entries
around it) is replaced by ``SHARED_DOCSTRINGS[name]``, indented the same way;
:class:`ufsel.base.BaseSelector` does this for every subclass when the class is
created, so a selector's docstring names the shared entries and writes only its own.
"""

from __future__ import annotations

import re
import textwrap

__all__ = ["SHARED_DOCSTRINGS", "fill_doc"]

#: name -> the numpydoc entries that a ``{name}`` line of a docstring stands for
SHARED_DOCSTRINGS = {
    "n_features_to_select": """\
n_features_to_select : int, float or None, default=None
    Number of features to select (int), fraction of the features (float in
    (0, 1]), or None for half of them.""",
    "verbose": """\
verbose : int, default=0
    With a value above 0, print one line per iteration (objective, relative
    change, elapsed time).""",
    "n_iter_": """\
n_iter_ : int
    Number of iterations run.""",
    "selector_attributes": """\
ranking_ : ndarray of shape (n_features,)
    ``ranking_[j]`` is the rank of feature j, 1 = best; constant features
    come last.
constant_features_ : ndarray of bool, shape (n_features,)
    The features found constant in the data ``fit`` saw
    (:func:`ufsel.linalg.constant_features`).
n_features_to_select_ : int
    The resolved number of selected features.
n_features_in_ : int
    Number of features seen during ``fit``.
feature_names_in_ : ndarray of shape (`n_features_in_`,)
    Names of the features seen during ``fit``, only for input with string
    column names (a DataFrame).""",
}

_PLACEHOLDER = re.compile(r"^( *)\{(\w+)\}$", re.MULTILINE)


def fill_doc(obj):
    """Replace the ``{name}`` lines of ``obj.__doc__`` by the shared entries.

    Parameters
    ----------
    obj : class or function
        Its docstring is rewritten in place; a name that is not in
        ``SHARED_DOCSTRINGS`` raises a KeyError when the class is defined.

    Returns
    -------
    obj : class or function
        The same object, so that ``fill_doc`` can be used as a decorator.
    """
    if obj.__doc__:
        obj.__doc__ = _PLACEHOLDER.sub(
            lambda m: textwrap.indent(SHARED_DOCSTRINGS[m.group(2)], m.group(1)), obj.__doc__)
    return obj
