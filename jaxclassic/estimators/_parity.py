"""Parameter parity with scikit-learn: the ONE table of the reference parameters we do not take.

Every class of :mod:`jaxclassic.estimators` named like a scikit-learn class accepts that class's
constructor parameters with the same names and meanings, except those listed in
:data:`PARAMETER_GAPS` with the reason. Classes without a same-named scikit-learn class are
compared with the reference named in :data:`REFERENCE_CLASSES` (xgboost's scikit-learn API for
the XGBoost-style boosters, hmmlearn for the hidden Markov models). The test
``tests/estimators/test_sklearn_parity.py`` compares the signatures: a reference parameter
that is neither accepted nor listed fails it, and so does a listed one that is accepted
(stale) or that the reference does not have.

Parameters we accept but whose values differ from the reference's are documented on each
class (e.g. ``Ridge`` solves by Cholesky only, ``KMeans`` runs Lloyd's algorithm only).
"""

from __future__ import annotations

import numpy as np

__all__ = ["PARAMETER_GAPS", "REFERENCE_CLASSES", "apply_class_weight"]


def apply_class_weight(class_weight, classes, y, sample_weight):
    r"""``sample_weight`` times the weight of each row's class: scikit-learn's ``class_weight``.

    Every fit of the package takes ``sample_weight``, and a class weight is a per-row weight
    :math:`s_i \leftarrow s_i\,c_{y_i}` (the objective of scikit-learn's classifiers with
    ``class_weight``: the loss of row :math:`i` scaled by :math:`c_{y_i}`, i.e. ``C`` rescaled
    row by row for the SVMs).

    Parameters
    ----------
    class_weight : None, "balanced" or dict {label: weight}
        ``"balanced"``: :math:`c_k = \sum_i s_i / (K \sum_i s_i [y_i = k])`, scikit-learn's
        ``compute_class_weight("balanced", ..., sample_weight=s)`` (the weighted class counts,
        so a row of weight 0, e.g. shape-bucket padding, counts for nothing; scikit-learn's trees
        and SVMs count rows unweighted, the same when ``sample_weight`` is None). A dict gives
        the weight of each listed label (1 for the others), as scikit-learn.
    classes : (K,) array
        The estimator's ``classes_``.
    y : (n_samples,) int array
        Class codes ``0..K-1`` (rows padded to a bucket included).
    sample_weight : (n_samples,) array
        Non-negative weights (0 on the padding rows).

    Returns
    -------
    (n_samples,) array of the dtype of ``sample_weight`` (numpy), or ``sample_weight`` itself
    when ``class_weight`` is None.

    Example
    -------
    >>> apply_class_weight("balanced", np.array([0, 1]), np.array([0, 0, 0, 1]), np.ones(4))
    array([0.66666667, 0.66666667, 0.66666667, 2.        ])
    """
    if class_weight is None:
        return sample_weight
    codes = np.asarray(y)
    sw = np.asarray(sample_weight)
    n_classes = len(classes)
    if isinstance(class_weight, str):
        if class_weight != "balanced":
            raise ValueError(f"class_weight must be 'balanced', a dict or None, got {class_weight!r}")
        counts = np.bincount(codes, weights=sw, minlength=n_classes)
        per_class = np.where(counts > 0, counts.sum() / (n_classes * np.where(counts > 0, counts, 1)), 0.0)
    elif isinstance(class_weight, dict):
        from sklearn.utils.class_weight import compute_class_weight

        per_class = compute_class_weight(class_weight, classes=np.asarray(classes), y=np.asarray(classes))
        if np.any(~np.isfinite(per_class)) or np.any(per_class < 0):
            raise ValueError(f"class_weight values must be finite and >= 0, got {class_weight!r}")
    else:
        raise TypeError(f"class_weight must be 'balanced', a dict or None, got {class_weight!r}")
    return (sw * per_class[codes]).astype(sw.dtype)

#: our class -> "module.Class" of its reference, for classes with no same-named scikit-learn class
REFERENCE_CLASSES: dict[str, str] = {
    # XGBClassifier / XGBRegressor take **kwargs; their named parameters are XGBModel's
    "XGBoostClassifier": "xgboost.sklearn.XGBModel",
    "XGBoostRegressor": "xgboost.sklearn.XGBModel",
    "GaussianHMM": "hmmlearn.hmm.GaussianHMM",
    "CategoricalHMM": "hmmlearn.hmm.CategoricalHMM",
}

#: n_jobs is taken where a fit can use the CPU's cores as devices (jaxclassic._cores: boosting,
#: forests, bagging of trees, and the members of voting / stacking) or where scikit-learn's
#: users expect it (LogisticRegression, LinearRegression, KNeighbors*: checked, no effect)
_N_JOBS = "XLA runs each compiled fit on all cores (and vmaps fits over folds, trees, pairs); there is no process pool"
#: verbose is taken by the long fits (boosting, forests, bagging, SVC / SVR, GaussianMixture,
#: the HMMs, ChainCRF, voting / stacking: jaxclassic._progress); these rows are the fits not yet wired
_VERBOSE = "no progress printing; iteration counts and histories are fitted attributes (n_iter_, loss_history_...)"
_COPY = "inputs are never modified: JAX arrays are immutable and the fit works on its own device copy"
_TREE_SEARCH = ("neighbour search is brute force on tiled distance blocks (exact, vmapped, runs on "
                "accelerators); there are no ball/KD trees to choose or size")
_MAX_LEAF_NODES = ("trees are arrays grown level by level (depth-D layout, one program per depth); "
                   "best-first growth to a leaf budget is not implemented: use max_depth")
_MONOTONIC = "monotonic constraints are not implemented in the histogram split search"
_WARM_START_ENSEMBLE = ("all members are one vmapped, shape-static fit; adding members to a fitted "
                        "ensemble would be a second program and is not implemented")
_CCP_FOREST = ("cost-complexity pruning is a per-tree host pass (jaxclassic.tree.prune); forests "
               "are vmapped array trees and are not pruned")
_EXTENSION_KW = "an xgboost-only feature not implemented by the core (jaxclassic.ensemble.fit_xgboost)"

PARAMETER_GAPS: dict[tuple[str, str], str] = {
    # ---------------------------------------------------------------- linear models
    ("LogisticRegression", "dual"): "liblinear's dual formulation; the core solves the primal (Newton or L-BFGS)",
    ("LogisticRegression", "intercept_scaling"): "liblinear's synthetic-feature trick; the core fits an unpenalised intercept directly",
    ("LogisticRegression", "verbose"): _VERBOSE,
    ("LogisticRegression", "warm_start"): "the core's solvers start from zero (no coefficient initialisation argument)",
    ("BayesianRidge", "compute_score"): "the log marginal likelihood per iteration is not recorded by the core's evidence loop",
    ("BayesianRidge", "copy_X"): _COPY,
    ("BayesianRidge", "verbose"): _VERBOSE,
    ("LinearRegression", "copy_X"): _COPY,
    ("Ridge", "copy_X"): _COPY,
    ("Ridge", "max_iter"): "the closed form (Cholesky of the Gram matrix) has no iterations; no iterative solvers",
    ("Ridge", "tol"): "the closed form (Cholesky of the Gram matrix) has no stopping tolerance",
    ("Ridge", "solver"): "one solver: Cholesky of the (optionally standardised) weighted Gram matrix",
    ("Ridge", "positive"): "non-negative ridge needs a constrained solver (scikit-learn: lbfgs with bounds), not implemented",
    ("Ridge", "random_state"): "the closed form is deterministic (scikit-learn uses it for sag/saga only)",
    ("SGDRegressor", "l1_ratio"): "elastic-net is not implemented: the core's penalty is L2",
    ("SGDRegressor", "tol"): "the epochs are a fixed-length compiled scan; stopping is by early_stopping on held-out rows",
    ("SGDRegressor", "shuffle"): "the rows are always reshuffled each epoch with the key from random_state",
    ("SGDRegressor", "verbose"): _VERBOSE,
    ("SGDRegressor", "epsilon"): "the epsilon of the huber / epsilon-insensitive losses, which are not implemented",
    ("SGDRegressor", "warm_start"): "each fit starts from zero (the core has no coefficient initialisation argument)",
    ("SGDRegressor", "average"): "averaged SGD (Polyak-Ruppert) is not implemented",
    ("SGDClassifier", "shuffle"): "the rows are always visited in a fresh order each epoch, drawn from the key of random_state",
    ("SGDClassifier", "verbose"): _VERBOSE,
    ("SGDClassifier", "epsilon"): "the epsilon of the huber / epsilon-insensitive losses, which are not implemented",
    ("SGDClassifier", "n_jobs"): _N_JOBS,
    ("SGDClassifier", "early_stopping"): "stopping is on the training objective (tol, n_iter_no_change); no held-out split",
    ("SGDClassifier", "validation_fraction"): "no early_stopping on held-out rows (see early_stopping)",
    ("SGDClassifier", "class_weight"): "not implemented; pass per-row sample_weight (weights of the class of each row)",
    ("SGDClassifier", "warm_start"): "each fit starts from zero; partial_fit continues from the fitted coefficients",
    ("SGDClassifier", "average"): "averaged SGD (Polyak-Ruppert) is not implemented",
    ("Lasso", "precompute"): "the weighted Gram matrix is always precomputed (one O(p^2) sweep whatever n is)",
    ("Lasso", "copy_X"): _COPY,
    ("Lasso", "random_state"): "cyclic coordinate descent only: there is no random selection to seed",
    ("Lasso", "selection"): "cyclic coordinate descent only (a sweep is one fori_loop over the features)",
    ("ElasticNet", "precompute"): "the weighted Gram matrix is always precomputed (one O(p^2) sweep whatever n is)",
    ("ElasticNet", "copy_X"): _COPY,
    ("ElasticNet", "random_state"): "cyclic coordinate descent only: there is no random selection to seed",
    ("ElasticNet", "selection"): "cyclic coordinate descent only (a sweep is one fori_loop over the features)",
    # ---------------------------------------------------------------- discriminant analysis
    ("LinearDiscriminantAnalysis", "tol"): "the svd solver's rank threshold; the eigh solver cuts eigenvalues below eps * d * max",
    ("LinearDiscriminantAnalysis", "covariance_estimator"): "covariance estimator objects have no functional core to call inside the compiled fit; use shrinkage",
    ("QuadraticDiscriminantAnalysis", "solver"): "one solver: eigendecomposition of each class covariance in correlation form",
    ("QuadraticDiscriminantAnalysis", "shrinkage"): "class covariances are regularised by reg_param (towards I) only",
    ("QuadraticDiscriminantAnalysis", "tol"): "the rank threshold of the svd solver; the core's eigendecomposition has no rank test",
    ("QuadraticDiscriminantAnalysis", "covariance_estimator"): "covariance estimator objects have no functional core to call inside the compiled fit; use reg_param",
    # ---------------------------------------------------------------- trees
    ("DecisionTreeClassifier", "splitter"): "only the best split over histogram bins; splitter='random' (extra-trees style) is not implemented",
    ("DecisionTreeClassifier", "max_leaf_nodes"): _MAX_LEAF_NODES,
    ("DecisionTreeClassifier", "monotonic_cst"): _MONOTONIC,
    ("DecisionTreeRegressor", "splitter"): "only the best split over histogram bins; splitter='random' (extra-trees style) is not implemented",
    ("DecisionTreeRegressor", "max_leaf_nodes"): _MAX_LEAF_NODES,
    ("DecisionTreeRegressor", "monotonic_cst"): _MONOTONIC,
    # ---------------------------------------------------------------- boosting
    ("AdaBoostClassifier", "estimator"): "the weak learner is the core's array tree, set by max_depth (1 = scikit-learn's default stump); an estimator object has no functional core to vmap",
    ("GradientBoostingClassifier", "max_features"): "feature subsampling per split is not implemented in the boosting core",
    ("GradientBoostingClassifier", "max_leaf_nodes"): _MAX_LEAF_NODES,
    ("GradientBoostingClassifier", "warm_start"): "the rounds are one lax.scan of fixed length; adding rounds to a fitted model is not implemented",
    ("GradientBoostingClassifier", "ccp_alpha"): "boosted trees are not pruned (cost-complexity pruning is a host pass on single trees)",
    ("GradientBoostingRegressor", "max_features"): "feature subsampling per split is not implemented in the boosting core",
    ("GradientBoostingRegressor", "alpha"): "the quantile of the 'huber' / 'quantile' losses, which are not implemented (squared_error, absolute_error)",
    ("GradientBoostingRegressor", "max_leaf_nodes"): _MAX_LEAF_NODES,
    ("GradientBoostingRegressor", "warm_start"): "the rounds are one lax.scan of fixed length; adding rounds to a fitted model is not implemented",
    ("GradientBoostingRegressor", "ccp_alpha"): "boosted trees are not pruned (cost-complexity pruning is a host pass on single trees)",
}


def _xgboost_gaps(name: str) -> dict[tuple[str, str], str]:
    reasons = {
        "max_leaves": "trees grow depth-wise to max_depth (lossguide growth to a leaf budget is not implemented)",
        "grow_policy": "depth-wise growth only (xgboost's default 'depthwise'); no 'lossguide'",
        "verbosity": "xgboost's logging level of its C++ core (warnings, debug); the eval lines are fit(verbose=...) here as in xgboost",
        "objective": "the objective follows the class: squared error for the regressor, log-loss / softmax for the classifier; custom objectives go through the functional jaxclassic.ensemble.fit_xgboost(loss=...)",
        "booster": "tree booster only ('gbtree'); no 'gblinear' / 'dart'",
        "tree_method": "one method: histograms of max_bin quantile bins (xgboost's 'hist')",
        "max_delta_step": _EXTENSION_KW + " (the leaf-step cap)",
        "sampling_method": "rows are subsampled uniformly (xgboost's 'uniform'); gradient-based sampling is not implemented",
        "colsample_bylevel": "feature subsampling is per tree only (colsample_bytree)",
        "colsample_bynode": "feature subsampling is per tree only (colsample_bytree)",
        "scale_pos_weight": "pass sample_weight (the same rescaling of the positive rows' gradients)",
        "missing": "NaN is the missing value (xgboost's default); other sentinels are not recognised",
        "num_parallel_tree": "one tree per round (boosted random forests are not implemented)",
        "monotone_constraints": _MONOTONIC,
        "interaction_constraints": _EXTENSION_KW,
        "device": "the device is JAX's (jax.default_device / JAX_PLATFORMS), not a per-estimator setting",
        "validate_parameters": "parameters are always validated in fit (Python, before tracing)",
        "enable_categorical": "numeric features only (no native categorical splits)",
        "feature_types": "numeric features only (no native categorical splits)",
        "feature_weights": "feature subsampling is uniform",
        "max_cat_to_onehot": "numeric features only (no native categorical splits)",
        "max_cat_threshold": "numeric features only (no native categorical splits)",
        "multi_strategy": "one tree per class per round (xgboost's default 'one_output_per_tree')",
        "eval_metric": "the monitored metric is the objective's own loss on eval_set (log-loss / squared error); no other metrics",
        "callbacks": "the rounds are one compiled lax.scan: no Python callbacks between rounds",
    }
    return {(name, param): reason for param, reason in reasons.items()}


def _hmm_gaps() -> dict[tuple[str, str], str]:
    priors = "Baum-Welch here is maximum likelihood: no Dirichlet / normal-Wishart priors on the parameters"
    gaps = {}
    for name in ("CategoricalHMM", "GaussianHMM"):
        gaps[(name, "startprob_prior")] = priors
        gaps[(name, "transmat_prior")] = priors
        gaps[(name, "algorithm")] = "decode / predict use Viterbi only (hmmlearn's default); posteriors come from predict_proba"
        gaps[(name, "implementation")] = "one implementation: forward-backward in log space in a lax.scan (hmmlearn's 'log' / 'scaling' give the same results)"
    gaps[("CategoricalHMM", "emissionprob_prior")] = priors
    for param in ("means_prior", "means_weight", "covars_prior", "covars_weight"):
        gaps[("GaussianHMM", param)] = priors + " (reg_covar adds a ridge to the covariances instead)"
    gaps[("GaussianHMM", "min_covar")] = "reg_covar (added to the covariance diagonal, as GaussianMixture) replaces hmmlearn's floor"
    return gaps


PARAMETER_GAPS.update(_xgboost_gaps("XGBoostClassifier"))
PARAMETER_GAPS.update(_xgboost_gaps("XGBoostRegressor"))
PARAMETER_GAPS.update(_hmm_gaps())
PARAMETER_GAPS.update({
    # ---------------------------------------------------------------- bagging and forests
    ("BaggingClassifier", "max_features"): "every member sees all features (random subspaces are not implemented in fit_bagging)",
    ("BaggingClassifier", "bootstrap_features"): "every member sees all features (random subspaces are not implemented in fit_bagging)",
    ("BaggingClassifier", "warm_start"): _WARM_START_ENSEMBLE,
    ("BaggingRegressor", "max_features"): "every member sees all features (random subspaces are not implemented in fit_bagging)",
    ("BaggingRegressor", "bootstrap_features"): "every member sees all features (random subspaces are not implemented in fit_bagging)",
    ("BaggingRegressor", "warm_start"): _WARM_START_ENSEMBLE,
    ("RandomForestClassifier", "max_leaf_nodes"): _MAX_LEAF_NODES,
    ("RandomForestClassifier", "warm_start"): _WARM_START_ENSEMBLE,
    ("RandomForestClassifier", "ccp_alpha"): _CCP_FOREST,
    ("RandomForestClassifier", "monotonic_cst"): _MONOTONIC,
    ("RandomForestRegressor", "max_leaf_nodes"): _MAX_LEAF_NODES,
    ("RandomForestRegressor", "warm_start"): _WARM_START_ENSEMBLE,
    ("RandomForestRegressor", "ccp_alpha"): _CCP_FOREST,
    ("RandomForestRegressor", "monotonic_cst"): _MONOTONIC,
    ("VotingClassifier", "flatten_transform"): "no transform method (the members' outputs are not exposed as features)",
    # ---------------------------------------------------------------- neighbours
    ("KNeighborsClassifier", "algorithm"): _TREE_SEARCH,
    ("KNeighborsClassifier", "leaf_size"): _TREE_SEARCH,
    ("KNeighborsClassifier", "metric_params"): "metrics are named by a string; 'minkowski' takes p directly (no weighted or custom metrics)",
    ("KNeighborsRegressor", "algorithm"): _TREE_SEARCH,
    ("KNeighborsRegressor", "leaf_size"): _TREE_SEARCH,
    ("KNeighborsRegressor", "metric_params"): "metrics are named by a string; 'minkowski' takes p directly (no weighted or custom metrics)",
    ("KernelDensity", "algorithm"): "densities are exact sums over tiled blocks of all training rows; no trees",
    ("KernelDensity", "metric"): "euclidean distance only (the kernels are normalised for it)",
    ("KernelDensity", "atol"): "densities are exact (scikit-learn's atol=rtol=0); no approximate tree traversal",
    ("KernelDensity", "rtol"): "densities are exact (scikit-learn's atol=rtol=0); no approximate tree traversal",
    ("KernelDensity", "breadth_first"): "densities are exact sums over tiled blocks of all training rows; no tree traversal order",
    ("KernelDensity", "leaf_size"): "densities are exact sums over tiled blocks of all training rows; no trees",
    ("KernelDensity", "metric_params"): "euclidean distance only",
    # ---------------------------------------------------------------- mixtures, GP, clustering
    ("GaussianMixture", "weights_init"): "user-given starting parameters are not implemented (init_params picks k-means, k-means++ or random starts)",
    ("GaussianMixture", "means_init"): "user-given starting parameters are not implemented (init_params picks k-means, k-means++ or random starts)",
    ("GaussianMixture", "precisions_init"): "user-given starting parameters are not implemented (init_params picks k-means, k-means++ or random starts)",
    ("GaussianMixture", "warm_start"): "each fit starts from init_params (n_init restarts are vmapped); continuing from a previous fit is not implemented",
    ("GaussianProcessRegressor", "copy_X_train"): _COPY,
    ("GaussianProcessRegressor", "n_targets"): "a single target (1-d y) only; multi-output GPs are not implemented",
    ("KMeans", "copy_x"): _COPY,
    ("KMeans", "algorithm"): "Lloyd's algorithm only (vmapped over restarts); Elkan's triangle-inequality bounds are not implemented",
    ("MiniBatchKMeans", "verbose"): _VERBOSE,
    ("MiniBatchKMeans", "compute_labels"): "labels_ and the whole-data inertia_ are always computed (one tiled pass)",
    ("MiniBatchKMeans", "init_size"): "the seeding runs on all rows (k-means++ is one pass over them a centre), not on a random subset",
    ("MiniBatchKMeans", "n_init"): "one seeding; scikit-learn's default for k-means++ is one too (n_init='auto')",
    ("AgglomerativeClustering", "memory"): "the tree is computed on every fit; no joblib caching",
    ("AgglomerativeClustering", "connectivity"): "connectivity-constrained merging is not implemented (all pairs are candidates)",
    ("AgglomerativeClustering", "compute_full_tree"): "the full tree is always built (cut_tree then cuts it)",
    # ---------------------------------------------------------------- SVMs
    ("LinearSVC", "multi_class"): "one-vs-rest only (LIBLINEAR's default); Crammer-Singer is not implemented",
    ("LinearSVC", "verbose"): _VERBOSE,
    ("SVC", "shrinking"): "SMO without LIBSVM's shrinking heuristic (a speed-up; the optimum is the same up to tol)",
    ("SVR", "shrinking"): "SMO without LIBSVM's shrinking heuristic (a speed-up; the optimum is the same up to tol)",
})
