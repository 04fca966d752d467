"""Graph Laplacians and the spectral embedding L y = lambda D y.

The embedding is computed from the normalised affinity
``D^{-1/2} W D^{-1/2}`` (its largest eigenvalues are ``1 - lambda``), with a
partial eigensolver: dense LAPACK for small graphs, ARPACK above
``linalg.DENSE_EIGH_MAX`` nodes, and from ``AMG_MIN_NODES`` nodes (when pyamg
is installed) LOBPCG on the normalised Laplacian ``I - D^{-1/2} W D^{-1/2}``
preconditioned by smoothed-aggregation AMG, as scikit-learn's
``spectral_embedding(eigen_solver="amg")`` does. A large graph costs O(nnz)
per product and never a dense n x n matrix.
"""

from __future__ import annotations

import numpy as np
from scipy import sparse
from scipy.sparse import csgraph
from scipy.sparse import linalg as splinalg
from sklearn.utils import check_random_state

from ..linalg import DENSE_EIGH_MAX, DENSE_SMALLEST_MAX, eigen_residuals, partial_eigh
from ..utils import optional_available

#: Laplacians up to this order are decomposed densely by ``laplacian_smallest``.
_DENSE_LAPLACIAN_MAX = 200
__all__ = [
    "canonical_embedding",
    "determined_spectral_embedding",
    "null_space_dimension",
    "graph_laplacian",
    "laplacian_smallest",
    "spectral_embedding",
    "sign_flip",
    "AMG_MIN_NODES",
    "EIGEN_SOLVERS",
]

#: ``eigen_solver="auto"`` uses AMG-preconditioned LOBPCG from this many nodes
#: when pyamg is installed (benchmarks/speed/bench_spectral.py compares the two): AMG's
#: cost grows about linearly while ARPACK's restarts grow faster, so AMG takes over
#: on large graphs.
AMG_MIN_NODES = 100_000

EIGEN_SOLVERS = ("auto", "dense", "arpack", "lobpcg", "amg")

#: Residual tolerance and iteration limit of the AMG-preconditioned LOBPCG.
_AMG_TOL, _AMG_MAXITER = 1e-6, 300

#: Eigenvalues of the normalised affinity above ``1 - _TRIVIAL_TOL`` belong
#: to the eigenvalue-1 eigenspace (one dimension per connected component).
_TRIVIAL_TOL = 1e-8


def graph_laplacian(W, *, normed=False, return_diag=False):
    """Laplacian ``L = D - W`` (or ``I - D^{-1/2} W D^{-1/2}`` when ``normed``).

    Thin wrapper over :func:`scipy.sparse.csgraph.laplacian` that keeps sparse
    input sparse (CSR) and returns the degree vector ``diag(D)`` on request
    (for ``normed=True`` scipy returns ``sqrt(diag(D))``; this function
    always returns the degrees themselves).

    Parameters
    ----------
    W : {sparse matrix, ndarray} of shape (n, n)
        Symmetric non-negative affinity.
    normed : bool, default=False
        Return the normalised Laplacian ``I - D^{-1/2} W D^{-1/2}``.
    return_diag : bool, default=False
        Also return the degrees ``diag(D)``.
    """
    W = sparse.csr_matrix(W) if sparse.issparse(W) else np.asarray(W, dtype=float)
    deg = np.asarray(W.sum(axis=1)).ravel()
    L = csgraph.laplacian(W, normed=normed)
    if sparse.issparse(L):
        L = L.tocsr()
    return (L, deg) if return_diag else L


def sign_flip(V):
    """V with each column's sign chosen so that its largest-magnitude entry is positive.

    Eigenvectors are defined up to sign; this choice makes them deterministic.

    Parameters
    ----------
    V : ndarray of shape (n, m)

    Returns
    -------
    V : ndarray of shape (n, m)
        A new array.
    """
    idx = np.argmax(np.abs(V), axis=0)
    signs = np.sign(V[idx, np.arange(V.shape[1])])
    signs[signs == 0] = 1.0
    return V * signs


def spectral_embedding(W, n_components, *, drop_first=True, eigen_solver="auto",
                       random_state=None, return_eigenvalues=False):
    """Smallest non-trivial solutions of ``L y = lambda D y``.

    Parameters
    ----------
    W : {sparse matrix, ndarray} of shape (n, n)
        Symmetric non-negative affinity.
    n_components : int
        Number of eigenvectors returned.
    drop_first : bool
        Drop the trivial constant solution (lambda = 0, ``y = 1``), as Cai's
        ``Eigenmap.m`` does. When the graph is disconnected, lambda = 0 has one
        solution per component; only the direction of the constant vector is
        removed and the remaining component indicators are kept, exactly as
        ``Eigenmap.m`` orthogonalises against ``D^{1/2} 1``.
    eigen_solver : {"auto", "dense", "arpack", "lobpcg", "amg"}
        ``"dense"``, ``"arpack"``, ``"lobpcg"``: see
        :func:`ufsel.linalg.partial_eigh`. ``"amg"``: LOBPCG on the
        normalised Laplacian with an AMG preconditioner (needs pyamg,
        ``pip install 'ufsel[amg]'``), residual tolerance 1e-6; should
        LOBPCG stop above ten times that (at its 300 iterations), ARPACK
        solves the problem instead.
        ``"auto"``: dense up to ``DENSE_EIGH_MAX`` nodes, ``"amg"`` from
        ``AMG_MIN_NODES`` nodes when pyamg is installed, ARPACK otherwise.
    random_state : int, RandomState or None
        Seeds the iterative eigensolver's start vector.
    return_eigenvalues : bool

    Returns
    -------
    Y : ndarray of shape (n, n_components)
        ``D``-orthonormal: ``Y^T D Y = I``. Columns ordered by increasing
        lambda; each column's largest-magnitude entry is positive.
    lambdas : ndarray of shape (n_components,), if ``return_eigenvalues``
    """
    n = W.shape[0]
    if W.ndim != 2 or W.shape != (n, n):
        raise ValueError(f"W must be a square affinity matrix, got shape {W.shape}.")
    m = n_components + int(drop_first)
    if not 1 <= n_components or m > n:
        raise ValueError(
            f"n_components={n_components} must be in [1, {n - int(drop_first)}] for a graph "
            f"of {n} nodes."
        )
    if eigen_solver not in EIGEN_SOLVERS:
        raise ValueError(
            f"eigen_solver={eigen_solver!r} not understood, valid options are "
            f"{set(EIGEN_SOLVERS)}."
        )
    W = sparse.csr_matrix(W, dtype=np.float64)
    if W.nnz and W.data.min() < 0:
        raise ValueError("W must be non-negative; got negative affinities.")
    if abs(W - W.T).max() > 1e-10 * max(1.0, abs(W).max()):
        raise ValueError("W must be symmetric; symmetrise it first (e.g. 0.5 * (W + W.T)).")
    return _spectral_embedding(W, n_components, drop_first, eigen_solver, random_state,
                               return_eigenvalues)


def _spectral_embedding(W, n_components, drop_first, eigen_solver, random_state,
                        return_eigenvalues):
    deg = np.asarray(W.sum(axis=1)).ravel()
    dinv = np.zeros_like(deg)
    np.divide(1.0, np.sqrt(deg), out=dinv, where=deg > 0)
    Dm = sparse.diags(dinv)
    A = (Dm @ W @ Dm).tocsr()
    m = n_components + int(drop_first)
    n = A.shape[0]
    if eigen_solver == "auto":
        if n > DENSE_EIGH_MAX and n >= AMG_MIN_NODES and optional_available("pyamg"):
            eigen_solver = "amg"
    if eigen_solver == "amg":
        L = (sparse.eye(n, format="csr") - A).tocsr()
        u0 = np.sqrt(deg)[:, None]
        lam, V = partial_eigh(L, m, which="smallest", method="lobpcg", M="amg",
                              X0=u0 / max(np.linalg.norm(u0), 1e-300), tol=_AMG_TOL,
                              maxiter=_AMG_MAXITER, random_state=random_state,
                              check_residuals=False)
        # Never silently inexact: residuals above the tolerance (LOBPCG stopped at
        # maxiter) send the problem to ARPACK, which converges to its own tolerance.
        _, _, res = eigen_residuals(L, V)
        if np.max(res) > 10.0 * _AMG_TOL:
            eigen_solver = "arpack"
        else:
            w = 1.0 - lam  # already descending
    if eigen_solver != "amg":
        w, V = partial_eigh(A, m, which="largest", method=eigen_solver,
                            random_state=random_state)
        w, V = w[::-1], V[:, ::-1]  # descending: lambda = 1 - w ascending
    if drop_first:
        u = np.sqrt(deg)
        u /= np.linalg.norm(u)
        nb = max(1, int(np.sum(w > 1.0 - _TRIVIAL_TOL)))
        B = V[:, :nb] - np.outer(u, u @ V[:, :nb])
        Ub, sb, _ = np.linalg.svd(B, full_matrices=False)
        V = np.hstack([Ub[:, : nb - 1], V[:, nb:]])
        w = np.concatenate([np.ones(nb - 1), w[nb:]]) if nb > 1 else w[1:]
        if nb > 1:  # keep the eigenvalues actually found for the block
            w[: nb - 1] = np.minimum(1.0, np.diag(Ub[:, : nb - 1].T @ (A @ Ub[:, : nb - 1])))
    Y = sign_flip(dinv[:, None] * V[:, :n_components])
    lambdas = 1.0 - w[:n_components]
    return (Y, lambdas) if return_eigenvalues else Y


def laplacian_smallest(L, k, *, random_state=None):
    """The ``k`` smallest eigenpairs of a sparse PSD graph Laplacian ``L = D - W``.

    The eigenvalue 0 has one eigenvector per connected component of the graph
    (its indicator), and an eigensolver returns an arbitrary, round-off
    dependent basis of a repeated eigenvalue; a Krylov method (ARPACK) also
    finds the copies of a repeated eigenvalue only through rounding, slowly
    and erratically (its run time then depends on the last bits of the weights). So
    the graph is split into its components (:func:`scipy.sparse.csgraph.connected_components`,
    exact): the null space is returned in closed form, the normalised
    indicators ``1_C / sqrt(|C|)`` with eigenvalue exactly 0, in the order of
    the components' smallest node, and the smallest non-zero eigenpairs come
    from each component's own Laplacian (whose zero eigenvalue is simple),
    merged in ascending order. When ``k`` is below the number of components,
    the first ``k`` indicators are returned: a choice among tied eigenvectors
    that the caller must treat as such (SOGFS averages over them).

    A connected graph (or component): dense LAPACK for ``n <= 200``; above,
    ARPACK in shift-invert mode around a small negative shift (``L - sigma
    I`` is positive definite, so its sparse LU is stable), which resolves the
    clustered eigenvalues near 0 of a graph with near-components in a few
    iterations instead of the thousands plain ``which="SA"`` needs. Should
    ARPACK fail, dense LAPACK up to ``DENSE_SMALLEST_MAX`` (4096) nodes,
    above it ARPACK again with a Krylov space of at least 4 k + 1 vectors.

    Parameters
    ----------
    L : sparse matrix of shape (n, n)
        A graph Laplacian ``D - W`` (symmetric, positive semi-definite).
    k : int
        Number of eigenpairs.
    random_state : int, RandomState or None, default=None
        Seeds ARPACK's start vector.

    Returns
    -------
    w : ndarray of shape (k,), ascending
    V : ndarray of shape (n, k)
    """
    L = sparse.csr_matrix(L, copy=True)
    L.eliminate_zeros()  # stored zeros are no edges
    n = L.shape[0]
    q, labels = csgraph.connected_components(L, directed=False)
    if q == 1:
        return _connected_laplacian_smallest(L, k, random_state)
    sizes = np.bincount(labels, minlength=q)
    null = np.zeros((n, q))
    null[np.arange(n), labels] = 1.0 / np.sqrt(sizes[labels])
    if k <= q:
        return np.zeros(k), null[:, :k]
    rng = check_random_state(random_state)
    found = []  # (eigenvalue, component, vector on the component)
    members = np.split(np.argsort(labels, kind="stable"), np.cumsum(sizes)[:-1])
    for comp, nodes in enumerate(members):  # each component's nodes, ascending
        want = min(k - q + 1, nodes.size)
        if want < 2:
            continue
        w, V = _connected_laplacian_smallest(L[nodes][:, nodes], want, rng)
        found += [(w[j], comp, nodes, V[:, j]) for j in range(1, want)]  # not its zero
    found.sort(key=lambda t: (t[0], t[1]))
    extra = found[:k - q]
    V = np.zeros((n, k))
    V[:, :q] = null
    for j, (_, _, nodes, v) in enumerate(extra):
        V[nodes, q + j] = v
    w = np.concatenate([np.zeros(q), [t[0] for t in extra]])
    return w, V


def _connected_laplacian_smallest(L, k, random_state):
    """:func:`laplacian_smallest` on a connected graph (one zero eigenvalue)."""
    n = L.shape[0]
    if n <= _DENSE_LAPLACIAN_MAX or k >= n - 1:
        return partial_eigh(L, k, which="smallest", method="dense")
    L = sparse.csc_matrix(L)
    scale = float(abs(L.diagonal()).max()) or 1.0
    rng = check_random_state(random_state)
    v0 = rng.uniform(-1, 1, n)
    try:
        w, V = splinalg.eigsh(L, k=k, sigma=-1e-3 * scale, which="LM", v0=v0)
    except (splinalg.ArpackError, splinalg.ArpackNoConvergence):
        # ARPACK can stall when k is a large fraction of its Krylov space (SOGFS on
        # palm: 101 of 2000 eigenpairs, "no shifts could be applied"); dense LAPACK
        # where the n x n matrix is affordable, else a larger Krylov space
        if n <= DENSE_SMALLEST_MAX:
            return partial_eigh(L, k, which="smallest", method="dense")
        w, V = splinalg.eigsh(L, k=k, sigma=-1e-3 * scale, which="LM", v0=v0,
                              ncv=min(n, max(4 * k + 1, 40)))
    order = np.argsort(w)
    return w[order], V[:, order]


def null_space_dimension(W):
    """Number of non-trivial solutions of ``L y = 0`` for the graph W: its connected
    components minus one.

    Each component's indicator solves ``L y = lambda D y`` with lambda = 0, and
    :func:`spectral_embedding` drops only the constant direction. When a method asks
    for fewer eigenvectors than this, which ones an eigensolver returns is not
    determined by the graph but by round-off; :func:`determined_spectral_embedding`
    then takes the whole eigenspace.

    Parameters
    ----------
    W : {sparse matrix, ndarray} of shape (n, n)
        Symmetric non-negative affinity.
    """
    return int(csgraph.connected_components(W, directed=False)[0]) - 1


def determined_spectral_embedding(W, n_components, *, canonical=False, eigen_solver="auto",
                                  random_state=None):
    """:func:`spectral_embedding` with as many columns as the graph determines.

    With more connected components than ``n_components + 1``, lambda = 0 has more
    non-trivial solutions (:func:`null_space_dimension`) than ``n_components``, and
    which of them an eigensolver returns follows round-off, so a method that
    starts from them would follow round-off too. The embedding is then the whole
    eigenspace (one column per component beyond the first) in the basis of
    :func:`canonical_embedding`; otherwise it is
    ``spectral_embedding(W, n_components)``, in that basis too when ``canonical``.
    Used for the starting clusters of RSFS and NDFS and for MCFS's regressions.

    Parameters
    ----------
    W : {sparse matrix, ndarray} of shape (n, n)
        Symmetric non-negative affinity.
    n_components : int
        Number of eigenvectors wanted (more are returned when the graph
        determines more, see above).
    canonical : bool, default=False
        Return the requested embedding in the basis of
        :func:`canonical_embedding` too.
    eigen_solver : {"auto", "dense", "arpack", "lobpcg", "amg"}, default="auto"
        See :func:`spectral_embedding`.
    random_state : int, RandomState or None, default=None
        Seeds the iterative eigensolver's start vector.
    """
    n_null = null_space_dimension(W)
    Y = spectral_embedding(W, max(n_components, n_null), eigen_solver=eigen_solver,
                           random_state=random_state)
    return canonical_embedding(Y) if canonical or n_null > n_components else Y


#: The embedding handed to k-means is rounded to this many significant bits.
_EMBEDDING_BITS = 30


def canonical_embedding(Y):
    """A basis of the column space of Y that does not depend on the solver's choice, rounded.

    k-means only sees distances between rows, which do not change under
    ``Y -> Y G`` (G orthogonal), but its tie-breaking does: on a graph with
    more connected components than requested eigenvectors the eigenvalue 0
    is repeated and the eigensolver returns an arbitrary (round-off
    dependent) basis of that eigenspace, and k-means on a rotated copy can
    end in a different partition when two partitions have equal inertia
    (which happens exactly for row-stochastic S: every grouping of c + 1
    components into c clusters has the same inertia). Here the basis is
    fixed by diagonalising ``Y^T T Y`` with ``T = diag(1, 2, ..., n) / n``
    (``Y G`` gives ``G^T (Y^T T Y) G``, hence the same result), the sign of
    each column is fixed by its largest entry, and the result (scaled by the
    power of two above its largest row norm) is rounded to
    ``_EMBEDDING_BITS`` bits, so that round-off of order 1e-16
    in the graph (a permutation of the features reorders the distance sums)
    gives bitwise the same k-means input and the same partition.

    Parameters
    ----------
    Y : ndarray of shape (n_samples, k)
        An embedding, any basis of the wanted column space.
    """
    n = Y.shape[0]
    t = np.arange(1, n + 1, dtype=np.float64) / n
    row = float(np.sqrt(np.einsum("ij,ij->i", Y, Y).max()))  # invariant under Y -> Y G
    Ys = np.ldexp(Y, -int(np.ceil(np.log2(row))) if row > 0 else 0)
    M = Ys.T @ (t[:, None] * Ys)
    _, G = np.linalg.eigh(0.5 * (M + M.T))
    Z = Ys @ G
    idx = np.argmax(np.abs(np.round(Z, 12)), axis=0)
    signs = np.sign(Z[idx, np.arange(Z.shape[1])])
    signs[signs == 0] = 1.0
    return np.ldexp(np.round(np.ldexp(Z * signs, _EMBEDDING_BITS)), -_EMBEDDING_BITS)
