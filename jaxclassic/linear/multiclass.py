"""One-vs-rest / one-vs-one in the linear family's namespace: thin aliases of
:mod:`jaxclassic.multiclass`, which works over ANY binary fit (linear, SVM, trees...).

``linear.fit_one_vs_rest`` / ``linear.fit_one_vs_one`` are the generic fits; their params
types are also registered with :mod:`jaxclassic.linear`'s dispatchers, so
``linear.predict(params, X)``, ``linear.decision_function`` and ``linear.predict_proba``
keep working on them.
"""

from jaxclassic.linear._api import decision_function, predict, predict_proba
from jaxclassic.multiclass import OneVsOneParams
from jaxclassic.multiclass import OneVsRestParams
from jaxclassic.multiclass import _ovo_decision
from jaxclassic.multiclass import _ovo_predict
from jaxclassic.multiclass import _ovr_decision
from jaxclassic.multiclass import _ovr_predict
from jaxclassic.multiclass import _ovr_predict_proba
from jaxclassic.multiclass import fit_one_vs_one
from jaxclassic.multiclass import fit_one_vs_rest

__all__ = ["OneVsRestParams", "OneVsOneParams", "fit_one_vs_rest", "fit_one_vs_one"]

decision_function.register(OneVsRestParams, _ovr_decision)
predict.register(OneVsRestParams, _ovr_predict)
predict_proba.register(OneVsRestParams, _ovr_predict_proba)
decision_function.register(OneVsOneParams, _ovo_decision)
predict.register(OneVsOneParams, _ovo_predict)
