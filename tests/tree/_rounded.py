"""The data of the split-point tests (issue 23.3), shared by tests/tree and tests/ensemble.

300 training rows of two features uniform on [0, 1] rounded to two decimals (at most 101
distinct values per feature: exact binning) and 2,000 continuous new rows, all float32
values (scikit-learn's trees cast X to float32; stored as float64 they are the same numbers,
so a float64 fit can equal scikit-learn's float64 thresholds exactly). A noise-free class
boundary and a noisy regression target. Seed 2 is one where scikit-learn's full-depth
classifier and its regressor with ``min_samples_leaf=3`` have no tied gains (the same tree
for every ``random_state``; with three features, or noisy labels, most seeds have ties).
"""

import numpy as np


def rounded_data(seed=2):
    """``X (300, 2)``, ``y_class``, ``y_reg``, ``X_new (2000, 2)``, float64 holding float32 values."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(300, 2)).round(2)
    X_new = rng.uniform(size=(2000, 2))
    f = np.sin(6 * X[:, 0]) + 4 * (X[:, 1] - 0.5) ** 2 - 0.5
    y_reg = f + 0.3 * rng.normal(size=300)
    as32 = lambda a: a.astype(np.float32).astype(np.float64)  # noqa: E731
    return as32(X), (f > 0).astype(np.int64), y_reg, as32(X_new)


def split_set(feature, threshold, children_left):
    """The (feature, threshold) of every internal node, sorted: a tree's splits whatever the
    order of its nodes (scikit-learn numbers them depth first, the engine level by level)."""
    internal = np.asarray(children_left) >= 0
    return sorted(zip(np.asarray(feature)[internal].tolist(), np.asarray(threshold)[internal].tolist()))


def sklearn_tie_free(make, X, y, sample_weight=None, n_states=5):
    """scikit-learn's tree ``make(random_state)`` fitted to ``(X, y)``, or None when its splits
    change with ``random_state`` (tied gains, broken by its random feature order)."""
    trees = [make(rs).fit(X, y, sample_weight=sample_weight) for rs in range(n_states)]
    sets = [split_set(t.tree_.feature, t.tree_.threshold, t.tree_.children_left) for t in trees]
    return trees[0] if all(s == sets[0] for s in sets) else None
