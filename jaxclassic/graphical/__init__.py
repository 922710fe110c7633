"""Probabilistic graphical models: discrete Bayesian networks, hidden Markov models and
linear-chain conditional random fields.

- :mod:`~jaxclassic.graphical.bayes_net`: DAGs over discrete variables with conditional
  probability tables; fit by counting (MAP with Dirichlet pseudo-counts), exact queries by
  variable elimination, d-separation, Markov blankets, ancestral sampling.
- :mod:`~jaxclassic.graphical.hmm`: forward / backward / Viterbi by ``lax.scan``, posteriors,
  Baum--Welch for categorical and Gaussian emissions over padded, vmapped sequences.
- :mod:`~jaxclassic.graphical.crf`: linear-chain CRFs, log Z by the forward algorithm,
  marginals as its gradient, Viterbi decoding, L-BFGS training.
"""

from __future__ import annotations

__all__: list[str] = []

# discrete Bayesian networks
from jaxclassic.graphical.bayes_net import BayesNet  # noqa: E402
from jaxclassic.graphical.bayes_net import Structure  # noqa: E402
from jaxclassic.graphical.bayes_net import make_structure  # noqa: E402
from jaxclassic.graphical.bayes_net import make_bayes_net  # noqa: E402
from jaxclassic.graphical.bayes_net import fit_bayes_net  # noqa: E402
from jaxclassic.graphical.bayes_net import bdeu_pseudo_counts  # noqa: E402
from jaxclassic.graphical.bayes_net import joint_log_prob  # noqa: E402
from jaxclassic.graphical.bayes_net import query  # noqa: E402
from jaxclassic.graphical.bayes_net import d_separated  # noqa: E402
from jaxclassic.graphical.bayes_net import markov_blanket  # noqa: E402
from jaxclassic.graphical.bayes_net import sample  # noqa: E402

__all__ += ["BayesNet", "Structure", "make_structure", "make_bayes_net", "fit_bayes_net"]
__all__ += ["bdeu_pseudo_counts"]
__all__ += ["joint_log_prob", "query", "d_separated", "markov_blanket", "sample"]

# hidden Markov models (the sampler stays module-level: jaxclassic.graphical.hmm.sample)
from jaxclassic.graphical import hmm  # noqa: E402
from jaxclassic.graphical.hmm import CategoricalHMMParams, GaussianHMMParams  # noqa: E402
from jaxclassic.graphical.hmm import FullGaussianHMMParams, TiedGaussianHMMParams  # noqa: E402
from jaxclassic.graphical.hmm import DiagGaussianHMMParams, SphericalGaussianHMMParams  # noqa: E402
from jaxclassic.graphical.hmm import Posterior  # noqa: E402
from jaxclassic.graphical.hmm import categorical_hmm, gaussian_hmm  # noqa: E402
from jaxclassic.graphical.hmm import forward, backward, posterior, viterbi  # noqa: E402
from jaxclassic.graphical.hmm_fit import fit_hmm  # noqa: E402

__all__ += ["hmm", "CategoricalHMMParams", "GaussianHMMParams", "categorical_hmm", "gaussian_hmm"]
__all__ += ["FullGaussianHMMParams", "TiedGaussianHMMParams", "DiagGaussianHMMParams"]
__all__ += ["SphericalGaussianHMMParams", "Posterior"]
__all__ += ["forward", "backward", "posterior", "viterbi", "fit_hmm"]

# linear-chain CRFs (the CRF's Viterbi stays module-level: jaxclassic.graphical.crf.viterbi)
from jaxclassic.graphical import crf  # noqa: E402
from jaxclassic.graphical.crf import CRFParams  # noqa: E402
from jaxclassic.graphical.crf import fit_crf  # noqa: E402
from jaxclassic.graphical.crf import log_partition  # noqa: E402
from jaxclassic.graphical.crf import marginals  # noqa: E402

__all__ += ["crf", "CRFParams", "fit_crf", "log_partition", "marginals"]
