"""Decision trees: binning, the CART histogram engine, and the shared tree API (ID3, C4.5,
pruning and export add their names below, one import a line)."""

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
