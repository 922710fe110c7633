"""Decision trees: binning, the CART histogram engine, and the shared tree API (ID3, C4.5,
pruning, the choice of its α and export add their names below, one import a line)."""

from jaxclassic.tree._api import apply
from jaxclassic.tree._api import feature_importances
from jaxclassic.tree._api import predict
from jaxclassic.tree._api import predict_proba
from jaxclassic.tree._params import ClassificationTree
from jaxclassic.tree._params import RegressionTree
from jaxclassic.tree._params import TreeParams
from jaxclassic.tree.binning import apply_bins
from jaxclassic.tree.binning import bin_features
from jaxclassic.tree.cart import TreeTruncatedWarning
from jaxclassic.tree.cart import fit_cart
from jaxclassic.tree.cart import fit_cart_binned
from jaxclassic.tree.id3 import ID3Params
from jaxclassic.tree.id3 import fit_id3
from jaxclassic.tree.id3 import information_gain
from jaxclassic.tree.c45 import C45Params
from jaxclassic.tree.c45 import fit_c45
from jaxclassic.tree.c45 import gain_ratio
from jaxclassic.tree.c45 import pessimistic_prune
from jaxclassic.tree.c45 import upper_error_bound
from jaxclassic.tree.export import export_text
from jaxclassic.tree.pruning import CostComplexityPath
from jaxclassic.tree.pruning import cost_complexity_path
from jaxclassic.tree.pruning import prune
from jaxclassic.tree.ccp_selection import CostComplexityCV
from jaxclassic.tree.ccp_selection import choose_ccp_alpha

__all__ = [
    "apply",
    "feature_importances",
    "predict",
    "predict_proba",
    "ClassificationTree",
    "RegressionTree",
    "TreeParams",
    "apply_bins",
    "bin_features",
    "TreeTruncatedWarning",
    "fit_cart",
    "fit_cart_binned",
    "ID3Params",
    "fit_id3",
    "information_gain",
    "C45Params",
    "fit_c45",
    "gain_ratio",
    "pessimistic_prune",
    "upper_error_bound",
    "export_text",
    "CostComplexityPath",
    "cost_complexity_path",
    "prune",
    "CostComplexityCV",
    "choose_ccp_alpha",
]
