"""Anchor (landmark) graphs: spectral quantities linear in the number of samples.

Each sample is linked to its ``s`` nearest of ``m << n`` landmarks by the
sparse, row-stochastic n x m matrix Z (Liu, He and Chang, ICML 2010; Cai and
Chen, AAAI 2011). The sample graph is ``W = Z Lambda^{-1} Z^T`` with
``Lambda = diag(Z^T 1)``; because Z's rows sum to one, W's degrees are all one
(``D = I``), its Laplacian is ``L = I - W``, and everything a graph-based
selector needs comes from m x m and m x d reductions of one pass over X:

- ``diag(X^T L X) = colsum(X * X) - diag((Z^T X)^T Lambda^{-1} (Z^T X))``;
- the spectral embedding, ``Y = Z Lambda^{-1/2} V Sigma^{-1}`` with
  ``V Sigma^2 V^T`` the eigendecomposition of the m x m matrix
  ``Lambda^{-1/2} Z^T Z Lambda^{-1/2}`` (landmark-based spectral clustering, LSC);
- ``X^T Y = (Z^T X)^T Lambda^{-1/2} V Sigma^{-1}``.

No n x n object and no n x n distance is ever formed: the cost is the k-means
on a row sample plus ``n m d`` flops for the distances to the landmarks. Z is
computed block by block (NumPy) or with ``map_blocks`` (dask), each block on its
own, so the result does not depend on the scheduler.
"""

from __future__ import annotations

import numpy as np
from scipy import linalg, sparse
from scipy.sparse import csgraph
from scipy.sparse import linalg as splinalg
from sklearn.cluster import KMeans
from sklearn.utils import check_random_state

from ..utils import DataShape, import_optional, is_dask_array, persist_dask
from ._spectral import sign_flip

__all__ = [
    "ANCHOR_GRAPH_MIN_SAMPLES",
    "ANCHOR_INITS",
    "AnchorGraph",
    "GRAPHS",
    "N_ANCHORS",
    "anchor_graph",
    "anchor_landmarks",
    "resolve_graph",
]

#: The values of the selectors' ``graph`` parameter.
GRAPHS = ("auto", "knn", "anchor", "pca")
#: How the landmarks are chosen: k-means centres on a row sample, or sampled rows.
ANCHOR_INITS = ("kmeans", "random")
#: Default number of landmarks (chosen in benchmarks/studies/anchor_graph_quality.md).
N_ANCHORS = 1000
#: ``graph="auto"`` takes the anchor graph from this many samples (in memory; a dask
#: array always gets it). Above every data set of the leaderboard, so that its results
#: are the exact k-NN graph's.
ANCHOR_GRAPH_MIN_SAMPLES = 50_000
#: k-means runs on at most this many sampled rows per landmark (and all rows when fewer)...
SAMPLE_PER_ANCHOR = 20
#: ... and on at most this many bytes of dense float64 sample.
SAMPLE_MAX_BYTES = 256 * 1024**2
#: Lloyd iterations of the landmark k-means (LSC uses 10; the landmarks need not converge).
KMEANS_MAX_ITER = 20
#: Rows per block of the in-memory pass (a dask array uses its own chunks).
BLOCK_ROWS = 8192


def resolve_graph(graph, X, *, neighbor_graphs=("knn",)):
    """The graph that ``graph`` selects for X: ``"anchor"``, ``"pca"`` or one of ``neighbor_graphs``.

    ``"auto"`` gives the anchor graph for a dask array and for a dense array of
    at least :data:`ANCHOR_GRAPH_MIN_SAMPLES` samples, the method's own
    neighbourhood graph (``neighbor_graphs[0]``) otherwise (sparse X keeps it:
    dense landmarks in its many dimensions would cost more than its neighbour
    search). A dask array never gets a neighbourhood graph (its exact search is
    quadratic in n). ``"pca"`` (the k-NN graph of the samples' principal components,
    :func:`ufsel.graph.pca_knn_affinity`) is returned as given. The fit and the memory
    estimate both ask this function (the estimate with the data's
    :class:`~ufsel.utils.DataShape`), so that they agree.

    Parameters
    ----------
    graph : str
        The requested graph: ``"auto"``, ``"anchor"``, ``"pca"`` or one of
        ``neighbor_graphs``.
    X : {ndarray, sparse matrix, dask array} of shape (n_samples, n_features) or DataShape
        The data, or what the memory estimate knows of them.
    neighbor_graphs : tuple of str, default=("knn",)
        The method's graphs built from each sample's nearest neighbours, its
        default first (RSFS: ``("local_kernel", "heat")``).

    Returns
    -------
    graph : str
        ``"anchor"``, ``"pca"`` or one of ``neighbor_graphs``.
    """
    valid = ("auto", *neighbor_graphs, "anchor", "pca")
    if graph not in valid:
        raise ValueError(f"graph={graph!r} not understood, valid options are {set(valid)}.")
    if isinstance(X, DataShape):
        n, is_sparse, is_dask = X.n, X.sparse, X.dask
    else:
        n, is_sparse, is_dask = X.shape[0], sparse.issparse(X), is_dask_array(X)
    if is_dask:
        if graph in neighbor_graphs or graph == "pca":
            raise ValueError(
                f"graph={graph!r} needs the data in memory (its neighbour search takes n^2 "
                "distances); on a dask array use graph='anchor' or 'auto', or X.compute()."
            )
        return "anchor"
    if graph == "auto":
        big = n >= ANCHOR_GRAPH_MIN_SAMPLES and not is_sparse
        return "anchor" if big else neighbor_graphs[0]
    return graph


def _float64(A):
    """A (computed if a dask array) in float64: sparse stays sparse (CSR)."""
    A = A.compute() if is_dask_array(A) else A
    if sparse.issparse(A):
        return sparse.csr_matrix(A, dtype=np.float64)
    return np.asarray(A, dtype=np.float64)


def _nearest_landmarks(Xb, landmarks, lnorm, s):
    """Indices (n_b x s, by increasing distance, ties to the smaller index) and squared
    distances of each row's s nearest landmarks. Sparse rows stay sparse: the distances
    come from the sparse-dense product ``Xb @ landmarks.T``."""
    Xb = _float64(Xb)
    if sparse.issparse(Xb):
        xnorm = np.asarray(Xb.multiply(Xb).sum(axis=1)).ravel()
    else:
        xnorm = np.einsum("ij,ij->i", Xb, Xb)
    d2 = xnorm[:, None] - 2.0 * np.asarray(Xb @ landmarks.T) + lnorm[None, :]
    np.maximum(d2, 0.0, out=d2)
    rows = np.arange(d2.shape[0])[:, None]
    if s < d2.shape[1]:
        cand = np.argpartition(d2, s - 1, axis=1)[:, :s]
        # ties at the boundary: redo those rows in index order (stable)
        kth = d2[rows, cand].max(axis=1)
        for i in np.flatnonzero(np.count_nonzero(d2 <= kth[:, None], axis=1) > s):
            cand[i] = np.argsort(d2[i], kind="stable")[:s]
    else:
        cand = np.broadcast_to(np.arange(d2.shape[1]), d2.shape).copy()
    dist = d2[rows, cand]
    order = np.lexsort((cand, dist), axis=1)
    return cand[rows, order], dist[rows, order]


def anchor_landmarks(X, n_anchors=N_ANCHORS, n_nearest=5, *, init="kmeans", sample_size=None,
                     random_state=None):
    """Landmarks for an anchor graph, and the Gaussian kernel's bandwidth.

    Parameters
    ----------
    X : {ndarray, sparse matrix, dask array} of shape (n_samples, n_features)
        The data; only a row sample is read.
    n_anchors : int, default=1000
        Number of landmarks m (at most the sample size).
    n_nearest : int, default=5
        Landmarks per sample s (used for the bandwidth).
    init : {"kmeans", "random"}, default="kmeans"
        k-means centres of the sample (scikit-learn's KMeans, one initialisation,
        :data:`KMEANS_MAX_ITER` Lloyd iterations), or sampled rows.
    sample_size : int or None, default=None
        Rows sampled (without replacement, seeded); None takes
        ``SAMPLE_PER_ANCHOR * n_anchors`` rows (all when fewer), and no more than fit
        in :data:`SAMPLE_MAX_BYTES` as dense float64.
    random_state : int, RandomState or None, default=None
        Seeds the sample and k-means.

    Returns
    -------
    landmarks : ndarray of shape (m, n_features), float64
    bandwidth : float
        The mean distance from a sampled row to its ``n_nearest`` nearest landmarks
        (LSC's kernel width).
    """
    if init not in ANCHOR_INITS:
        raise ValueError(f"init={init!r} not understood, valid options are {set(ANCHOR_INITS)}.")
    rng = check_random_state(random_state)
    n = X.shape[0]
    if sample_size is None:
        sample_size = min(SAMPLE_PER_ANCHOR * n_anchors,
                          max(n_anchors, SAMPLE_MAX_BYTES // (8 * max(X.shape[1], 1))))
    size = min(n, sample_size)
    m = min(n_anchors, size)
    idx = np.arange(n) if size >= n else np.sort(rng.choice(n, size, replace=False))
    S = _float64(X if size >= n else X[idx])  # sparse X: a sparse sample (KMeans takes CSR)
    if init == "random":
        landmarks = S[np.sort(rng.choice(size, m, replace=False))]
        landmarks = landmarks.toarray() if sparse.issparse(landmarks) else landmarks
    else:
        km = KMeans(n_clusters=m, n_init=1, max_iter=KMEANS_MAX_ITER,
                    random_state=rng.randint(np.iinfo(np.int32).max)).fit(S)
        landmarks = np.asarray(km.cluster_centers_, dtype=np.float64)
    s = min(n_nearest, m)
    lnorm = np.einsum("ij,ij->i", landmarks, landmarks)
    d2 = np.concatenate([_nearest_landmarks(S[a:a + BLOCK_ROWS], landmarks, lnorm, s)[1]
                         for a in range(0, size, BLOCK_ROWS)])
    t = float(np.sqrt(d2).mean())
    return landmarks, (t if t > 0 else 1.0)


def _anchor_weights(Xb, landmarks, lnorm, s, bandwidth):
    """Each row's s nearest landmarks and their weights (Gaussian kernel, rows summing to
    one): ``(indices, weights)``, both n_b x s. The n_b x m distances are formed
    :data:`BLOCK_ROWS` rows at a time."""
    parts = [_nearest_landmarks(Xb[a:a + BLOCK_ROWS], landmarks, lnorm, s)
             for a in range(0, Xb.shape[0], BLOCK_ROWS)]
    ind = np.concatenate([p[0] for p in parts]) if parts else np.zeros((0, s), dtype=np.intp)
    d2 = np.concatenate([p[1] for p in parts]) if parts else np.zeros((0, s))
    # shifted by the nearest distance before exp: the normalised weights are the same,
    # and a row far from every landmark cannot underflow to all zeros
    w = np.exp(-(d2 - d2[:, :1]) / (2.0 * bandwidth**2))
    w /= w.sum(axis=1, keepdims=True)
    return ind, w


def _block_z(ind, w, m):
    n_b, s = ind.shape
    return sparse.csr_matrix((w.ravel(), ind.ravel(), np.arange(0, n_b * s + 1, s)),
                             shape=(n_b, m))


def _packed_block_z(iw, m):
    """A block's Z from its packed ``[indices, weights]`` rows (n_b x 2 s, float64)."""
    s = iw.shape[1] // 2
    return _block_z(iw[:, :s].astype(np.intp), iw[:, s:], m)


class _DaskOperator:
    """A linear map applied as ``op @ F`` to a dask array F of shape (n, c) chunked like X
    (the anchor graph's Laplacian and its parts, for a dask X)."""

    def __init__(self, shape, apply):
        self.shape = shape
        self._apply = apply

    def __matmul__(self, F):
        return self._apply(F)


def _block_stats(Xb, Zb):
    """One block's contribution to the anchor graph's reductions, flattened:
    ``Z^T 1`` (m), ``Z^T Z`` (m x m), ``Z^T X`` (m x d), ``colsum X``, ``colsum X^2``."""
    if sparse.issparse(Xb):
        Xb = sparse.csr_matrix(Xb, dtype=np.float64)
        ZtX = (Zb.T @ Xb).toarray()
        c1 = np.asarray(Xb.sum(axis=0)).ravel()
        c2 = np.asarray(Xb.multiply(Xb).sum(axis=0)).ravel()
    else:
        Xb = np.asarray(Xb, dtype=np.float64)
        ZtX = np.asarray(Zb.T @ Xb)
        c1, c2 = Xb.sum(axis=0), np.einsum("ij,ij->j", Xb, Xb)
    ZtZ = (Zb.T @ Zb).toarray()
    lam = np.asarray(Zb.sum(axis=0)).ravel()
    return np.concatenate([lam, ZtZ.ravel(), ZtX.ravel(), c1, c2])


class AnchorGraph:
    """The reductions of an anchor graph ``W = Z Lambda^{-1} Z^T`` over X.

    Built by :func:`anchor_graph`; holds only m-, m x m-, m x d- and d-sized
    arrays (and, for in-memory X, the sparse n x m Z).

    Parameters
    ----------
    landmarks : ndarray of shape (m, n_features)
        The landmarks.
    bandwidth : float
        Gaussian kernel width of the weights.
    n_nearest : int
        Landmarks per sample s.
    n_samples : int
        Number of rows of X.
    stats : ndarray
        The summed block reductions, flattened: ``Z^T 1``, ``Z^T Z``, ``Z^T X``,
        ``X^T 1``, ``(X * X)^T 1``.
    Z : scipy.sparse.csr_matrix of shape (n_samples, m), optional
        For in-memory X.
    X : dask array of shape (n_samples, n_features), optional
        For a dask X: :meth:`embed` maps its blocks.

    Attributes
    ----------
    landmarks : ndarray of shape (m, n_features)
    bandwidth : float
        Gaussian kernel width of the weights.
    n_nearest : int
        Landmarks per sample s.
    n_samples : int
    anchor_degree : ndarray of shape (m,)
        ``Lambda = Z^T 1``.
    ZtZ : ndarray of shape (m, m)
    ZtX : ndarray of shape (m, n_features)
    col_sum, col_sq : ndarray of shape (n_features,)
        ``X^T 1`` and ``(X * X)^T 1``.
    Z : scipy.sparse.csr_matrix of shape (n_samples, m) or None
        For in-memory X; None for a dask array (see :meth:`embed`).
    """

    def __init__(self, landmarks, bandwidth, n_nearest, n_samples, stats, Z=None, X=None):
        m, d = landmarks.shape
        self.landmarks, self.bandwidth, self.n_nearest = landmarks, bandwidth, n_nearest
        self.n_samples = n_samples
        parts = np.split(stats, np.cumsum([m, m * m, m * d, d]))
        self.anchor_degree = parts[0]
        self.ZtZ = parts[1].reshape(m, m)
        self.ZtX = parts[2].reshape(m, d)
        self.col_sum, self.col_sq = parts[3], parts[4]
        self.Z = Z
        self._X = X  # a dask array, for lazy embeddings
        self._weights = None  # its packed landmarks and weights, once persisted

    @property
    def degree(self):
        """The samples' degrees in W: all one (Z's rows sum to one)."""
        return np.ones(self.n_samples)

    def _inv_degree(self, power):
        lam = self.anchor_degree
        out = np.zeros_like(lam)
        np.power(lam, -power, out=out, where=lam > 0)
        return out

    def laplacian_quadratic(self):
        """``diag(X^T L X)``, ``L = I - W``: ``f^T L f`` for every feature f (float64)."""
        inv = self._inv_degree(1.0)
        fWf = np.einsum("md,md,m->d", self.ZtX, self.ZtX, inv)
        return np.maximum(self.col_sq - fWf, 0.0)

    def spectral_coefficients(self, n_components, *, drop_first=True):
        """The embedding's landmark coefficients C (``Y = Z C``) and eigenvalues.

        Y solves ``L y = lambda D y`` (``D = I``) for the smallest lambda, with
        ``Y^T Y = I``; the trivial constant solution is removed when
        ``drop_first``. Each column's sign makes its largest-magnitude landmark
        coefficient positive.

        On a disconnected graph (the connected components of the landmarks that
        share samples, exact) the eigenspace of lambda = 0 holds one indicator
        per component, and an eigensolver would return a round-off-dependent
        basis of it: it is returned whole, first, in the basis of the
        components' indicators in landmark order, orthogonalised against the
        constant (so with more components than ``n_components + 1`` there are
        more columns than ``n_components``, as with
        :func:`determined_spectral_embedding`).

        Parameters
        ----------
        n_components : int
            Number of eigenvectors.
        drop_first : bool, default=True
            Remove the constant solution.

        Returns
        -------
        C : ndarray of shape (m, n_columns)
        lambdas : ndarray of shape (n_columns,)
        """
        m = self.ZtZ.shape[0]
        if not 1 <= n_components <= m - int(drop_first):
            raise ValueError(
                f"n_components={n_components} must be in [1, {m - int(drop_first)}] for an "
                f"anchor graph of {m} landmarks."
            )
        h = self._inv_degree(0.5)
        M = h[:, None] * self.ZtZ * h[None, :]
        M = 0.5 * (M + M.T)
        # M's eigenvectors of eigenvalue 1 (lambda = 0): sqrt(Lambda) on each component
        root = np.sqrt(np.maximum(self.anchor_degree, 0.0))
        used = root > 0
        _, labels = csgraph.connected_components(sparse.csr_matrix(self.ZtZ > 0),
                                                 directed=False)
        comps = np.unique(labels[used])
        N = np.zeros((m, len(comps)))
        for j, c in enumerate(comps):
            N[labels == c, j] = root[labels == c]
        N /= np.linalg.norm(N, axis=0)
        v0 = root / np.linalg.norm(root)
        if drop_first:
            Q = linalg.qr(np.column_stack([v0, N]), mode="economic")[0][:, 1:len(comps)]
        else:
            Q = linalg.qr(N, mode="economic")[0]
        Q = sign_flip(Q)
        rest = max(0, min(n_components - Q.shape[1], m - len(comps)))
        if rest:
            P = np.eye(m) - N @ linalg.pinv(N)  # off the whole null space (v0 included)
            sig2, V = linalg.eigh(P @ M @ P, subset_by_index=[m - rest, m - 1])
            sig2, V = sig2[::-1], sign_flip(V[:, ::-1])
        else:
            sig2, V = np.zeros(0), np.zeros((m, 0))
        V = np.hstack([Q, V])
        sig2 = np.concatenate([np.ones(Q.shape[1]), sig2])
        sig = np.sqrt(np.clip(sig2, 0.0, None))
        inv = np.zeros_like(sig)
        np.divide(1.0, sig, out=inv, where=sig > 1e-12)
        return h[:, None] * V * inv[None, :], 1.0 - np.clip(sig2, 0.0, 1.0)

    def full_spectrum(self):
        """Every eigenpair of L outside the null space of W, as landmark coefficients.

        W has rank at most m: its non-zero eigenvalues ``sigma^2`` are those of
        the m x m matrix ``Lambda^{-1/2} Z^T Z Lambda^{-1/2}``, with eigenvectors
        ``Z C``; every vector orthogonal to them is an eigenvector of
        ``L = I - W`` with eigenvalue 1.

        Returns
        -------
        C : ndarray of shape (m, r)
            ``Y = Z C`` orthonormal, r the number of eigenvalues above 1e-12
            (the trivial constant solution included).
        lambdas : ndarray of shape (r,)
            The eigenvalues ``1 - sigma^2`` of L, ascending.
        """
        h = self._inv_degree(0.5)
        M = h[:, None] * self.ZtZ * h[None, :]
        sig2, V = linalg.eigh(0.5 * (M + M.T))
        sig2, V = sig2[::-1], V[:, ::-1]
        keep = sig2 > 1e-12
        sig2, V = sig2[keep], sign_flip(V[:, keep])
        return h[:, None] * V / np.sqrt(sig2)[None, :], 1.0 - np.minimum(sig2, 1.0)

    def laplacian_operators(self):
        """``L = I - W``, its diagonal part and ``diag(L) - L``, for in-memory X.

        ``W`` is applied as ``Z (Lambda^{-1} (Z^T F))`` (O(n s c) per n x c block),
        never formed.

        For a dask X the three are operators on n x c dask arrays chunked like X
        (``op @ F``): each sample's landmarks and weights are computed once, in one
        blockwise pass, and kept on the workers (an n x 2s array), and ``W F`` is
        ``Z_b (Lambda^{-1} (Z^T F))`` block by block after the m x c reduction
        ``Z^T F``.

        Returns
        -------
        L : LinearOperator of shape (n, n)
        L_diag : scipy.sparse.dia_matrix of shape (n, n), or an operator for a dask X
            ``diag(L)``, non-negative.
        L_off : LinearOperator of shape (n, n)
            ``diag(L) - L = W - diag(W)``, non-negative entries.
        """
        if self.Z is None:
            return self._dask_laplacian_operators()
        Z, Zt, inv = self.Z, self.Z.T.tocsr(), self._inv_degree(1.0)
        n = self.n_samples
        wdiag = np.asarray(Z.multiply(Z) @ inv).ravel()

        def w_dot(F):
            F = np.asarray(F)
            out = Z @ (inv.reshape((-1,) + (1,) * (F.ndim - 1)) * (Zt @ F))
            return np.asarray(out)

        def shape_like(F):
            return F.reshape(n, -1) if F.ndim > 1 else F

        def lap(F):
            F = shape_like(np.asarray(F))
            return F - w_dot(F)

        def off(F):
            F = shape_like(np.asarray(F))
            return w_dot(F) - (wdiag if F.ndim == 1 else wdiag[:, None]) * F

        L = splinalg.LinearOperator((n, n), matvec=lap, matmat=lap, rmatvec=lap, rmatmat=lap,
                                    dtype=np.float64)
        L_off = splinalg.LinearOperator((n, n), matvec=off, matmat=off, rmatvec=off,
                                        rmatmat=off, dtype=np.float64)
        return L, sparse.diags(1.0 - wdiag), L_off

    def _dask_weights(self):
        """Each sample's landmarks and weights, ``[indices, weights]`` (n x 2s, float64,
        chunked like X), persisted on first use."""
        if self._weights is None:
            landmarks, bandwidth, s = self.landmarks, self.bandwidth, self.n_nearest
            lnorm = np.einsum("ij,ij->i", landmarks, landmarks)

            def block(Xb):
                return np.hstack(_anchor_weights(Xb, landmarks, lnorm, s, bandwidth))

            packed = self._X.map_blocks(block, chunks=(self._X.chunks[0], (2 * s,)),
                                        dtype=np.float64)
            (self._weights,) = persist_dask(packed)
        return self._weights

    def _dask_laplacian_operators(self):
        da = import_optional("dask.array", purpose="An anchor graph of a dask array")
        IW, inv = self._dask_weights(), self._inv_degree(1.0)
        m, n = self.ZtZ.shape[0], self.n_samples

        def wdiag_block(iw):
            Zb = _packed_block_z(iw, m)
            return np.asarray(Zb.multiply(Zb) @ inv).ravel()

        wdiag = IW.map_blocks(wdiag_block, drop_axis=1, dtype=np.float64)

        def w_dot(F):
            F = F.rechunk({0: IW.chunks[0], 1: -1})
            c = F.shape[1]

            def zt(iw, Fb):
                return np.asarray(_packed_block_z(iw, m).T @ Fb).reshape(1, m * c)

            ZtF = da.map_blocks(zt, IW, F, chunks=((1,) * IW.numblocks[0], (m * c,)),
                                dtype=np.float64).sum(axis=0).compute().reshape(m, c)
            P = inv[:, None] * ZtF
            return IW.map_blocks(lambda iw: np.asarray(_packed_block_z(iw, m) @ P),
                                 chunks=(IW.chunks[0], (c,)), dtype=np.float64)

        shape = (n, n)
        L = _DaskOperator(shape, lambda F: F - w_dot(F))
        L_diag = _DaskOperator(shape, lambda F: (1.0 - wdiag)[:, None] * F)
        L_off = _DaskOperator(shape, lambda F: w_dot(F) - wdiag[:, None] * F)
        return L, L_diag, L_off

    def embed(self, C):
        """``Z C``: an ndarray for in-memory X, a dask array chunked like X otherwise.

        Parameters
        ----------
        C : ndarray of shape (m, k)
            Landmark coefficients (:meth:`spectral_coefficients`).

        Returns
        -------
        Y : ndarray or dask array of shape (n_samples, k)
        """
        if self.Z is not None:
            return np.asarray(self.Z @ C)
        landmarks, bandwidth, s = self.landmarks, self.bandwidth, self.n_nearest
        m = landmarks.shape[0]
        if self._weights is not None:  # already on the workers
            return self._weights.map_blocks(
                lambda iw: np.asarray(_packed_block_z(iw, m) @ C),
                chunks=(self._weights.chunks[0], (C.shape[1],)), dtype=np.float64)
        lnorm = np.einsum("ij,ij->i", landmarks, landmarks)

        def block(Xb):
            return np.asarray(_block_z(*_anchor_weights(Xb, landmarks, lnorm, s, bandwidth),
                                       m) @ C)

        return self._X.map_blocks(block, chunks=(self._X.chunks[0], (C.shape[1],)),
                                  dtype=np.float64)

    def transpose_dot_embedding(self, C):
        """``X^T (Z C)`` from the m x d reduction (no pass over X).

        Parameters
        ----------
        C : ndarray of shape (m, k)
            Landmark coefficients.

        Returns
        -------
        XtY : ndarray of shape (n_features, k)
        """
        return self.ZtX.T @ C


def anchor_graph(X, n_anchors=N_ANCHORS, n_nearest=5, *, init="kmeans", sample_size=None,
                 block_size=BLOCK_ROWS, random_state=None):
    """The anchor graph of X and its reductions, in one pass over X after the landmarks.

    Parameters
    ----------
    X : {ndarray, sparse matrix, dask array} of shape (n_samples, n_features)
        The data; a dask array is processed chunk by chunk with ``map_blocks``
        (its columns in one chunk).
    n_anchors : int, default=1000
        Number of landmarks m.
    n_nearest : int, default=5
        Landmarks per sample s.
    init : {"kmeans", "random"}, default="kmeans"
        See :func:`anchor_landmarks`.
    sample_size : int or None, default=None
        See :func:`anchor_landmarks`.
    block_size : int, default=8192
        Rows per block for in-memory X.
    random_state : int, RandomState or None, default=None
        Seeds the landmarks.

    Returns
    -------
    graph : AnchorGraph

    Notes
    -----
    Sample i's weight on landmark j among its s nearest is
    ``exp(-||x_i - u_j||^2 / (2 t^2))``, normalised to sum one over the s (the
    Nadaraya-Watson kernel weights of Liu et al. 2010, as LSC uses them), with t
    the mean distance to the s nearest landmarks on the sample. Landmarks by
    k-means on a row sample (Cai and Chen 2011). The same data, chunks and
    ``random_state`` give the same graph in memory and on dask, up to the order
    of the blockwise sums.
    """
    landmarks, bandwidth = anchor_landmarks(X, n_anchors, n_nearest, init=init,
                                            sample_size=sample_size, random_state=random_state)
    m, d = landmarks.shape
    s = min(n_nearest, m)
    lnorm = np.einsum("ij,ij->i", landmarks, landmarks)
    n = X.shape[0]
    if is_dask_array(X):
        import_optional("dask.array", purpose="An anchor graph of a dask array")
        X = X.rechunk({1: -1})
        size = m + m * m + m * d + 2 * d

        def block(Xb):
            Zb = _block_z(*_anchor_weights(Xb, landmarks, lnorm, s, bandwidth), m)
            return _block_stats(Xb, Zb)[None, :]

        parts = X.map_blocks(block, chunks=((1,) * len(X.chunks[0]), (size,)),
                             dtype=np.float64)
        stats = np.asarray(parts.sum(axis=0).compute())
        return AnchorGraph(landmarks, bandwidth, s, n, stats, X=X)
    blocks, stats = [], None
    for a in range(0, n, block_size):
        Xb = X[a:a + block_size]
        Zb = _block_z(*_anchor_weights(Xb, landmarks, lnorm, s, bandwidth), m)
        blocks.append(Zb)
        part = _block_stats(Xb, Zb)
        stats = part if stats is None else stats + part
    Z = sparse.vstack(blocks, format="csr")
    return AnchorGraph(landmarks, bandwidth, s, n, stats, Z=Z)
