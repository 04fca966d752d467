"""
Selection on a Dask cluster
===========================

Data too large for one machine's memory live in a :class:`dask.array.Array`, in blocks of
rows spread over a cluster's workers. Eight selectors accept one (MaxVariance, PivotedQR,
LaplacianScore, SPEC, MCFS, NDFS, RSFS and SPCAFS): each reduces the blocks to d-sized,
d x d or landmark-sized statistics (NDFS and RSFS keep their n x c iterates in blocks
on the workers), and the graph-based ones use an anchor graph, linear in the
number of rows (see :doc:`/guide/sparse_large_dask`). Here a small :class:`~distributed.LocalCluster`
stands in for a real one, and :func:`ufsel.datasets.make_planted_dask` generates the data
lazily: 10 of the 30 features carry the clusters, and each block is generated on the
worker that needs it.
"""

import matplotlib.pyplot as plt
import numpy as np
from dask.distributed import Client, LocalCluster

import ufsel
from ufsel.datasets import make_planted_dask

X, y, planted = make_planted_dask(20_000, 30, 10, chunks=5_000, random_state=0)
print(X)
print("planted features:", planted)

methods = {
    "MaxVariance": ufsel.MaxVariance(10),
    "PivotedQR": ufsel.PivotedQR(10),
    "LaplacianScore": ufsel.LaplacianScore(10, n_anchors=100, random_state=0),
    "MCFS": ufsel.MCFS(10, n_clusters=10, n_anchors=100, random_state=0),
}
found = {}
with LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                  dashboard_address=None) as cluster, Client(cluster):
    for name, sel in methods.items():
        sel.fit(X)                                     # blockwise, on the workers
        found[name] = np.intersect1d(np.flatnonzero(sel.get_support()), planted).size
        print(f"{name:15s} planted features among the 10 selected: {found[name]}")
    Xs = methods["LaplacianScore"].transform(X)        # still a lazy dask array
    print(type(Xs).__name__, Xs.shape)

fig, ax = plt.subplots(figsize=(5, 2.5))
ax.barh(list(found), list(found.values()))
ax.set_xlim(0, 10)
ax.set_xlabel("planted features among the 10 selected")
fig.tight_layout()
plt.show()
