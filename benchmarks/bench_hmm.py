"""Hidden Markov models: forward (log-likelihood), one Baum--Welch iteration and Viterbi vs
hmmlearn.

Data (the issue's figures): 1,000 sequences x 500 steps of a categorical HMM with 10 states
and 20 symbols, drawn from random parameters (Dirichlet(1) rows, ``default_rng(0)``); quick: 20
sequences x 50 steps, 3 states, 5 symbols. float64 on both sides (hmmlearn computes in
float64). Both sides start from the same parameters (hmmlearn ``init_params=""``,
``implementation="log"``, its default).

Cases, each the public entry point on the whole data set (validation and padding included):

* forward: ``jaxclassic.graphical.hmm.log_likelihood(params, X, lengths)`` (one vmapped
  ``lax.scan`` over the padded sequences) vs ``CategoricalHMM.score(X, lengths)``;
* one Baum--Welch iteration: ``fit_hmm(X, lengths, K, init=params, max_iter=1, tol=0)`` vs
  ``CategoricalHMM(n_iter=1).fit(X, lengths)`` (forward, backward, posteriors, M-step);
* Viterbi: ``jaxclassic.graphical.hmm.decode(params, X, lengths)`` (one batched scan over the
  padded sequences) vs ``CategoricalHMM.decode(X, lengths)``.

Ours: compile apart, median of 3 runs; hmmlearn: one run (full size) or the median of 3
(quick). Agreement: the difference of the log-likelihoods, the largest parameter difference
after the iteration, the fraction of Viterbi states that agree and the difference of the best
paths' total log-probabilities (a state can differ where two paths tie exactly: same
log-probability, numpy's and our argmax break the tie at different steps).
"""

from __future__ import annotations

import warnings

import numpy as np

from benchmarks._harness import Result, time_host, time_jax

__all__ = ["run"]


def run(quick: bool) -> list[Result]:
    import jax
    from hmmlearn import hmm as H

    from jaxclassic.graphical import fit_hmm, hmm

    with jax.enable_x64(True):
        return _run(quick, jax, H, fit_hmm, hmm)


def _run(quick, jax, H, fit_hmm, hmm):
    S, T, K, M = (20, 50, 3, 5) if quick else (1_000, 500, 10, 20)
    ref_repeats = 3 if quick else 1
    rng = np.random.default_rng(0)
    pi = rng.dirichlet(np.ones(K))
    A = rng.dirichlet(np.ones(K), K)
    B = rng.dirichlet(np.ones(M), K)
    params = hmm.categorical_hmm(pi, A, B)
    keys = jax.random.split(jax.random.key(0), S)
    X = np.asarray(jax.vmap(lambda k: hmm.sample(params, T, key=k)[0])(keys)).reshape(-1)
    lengths = [T] * S
    case = f"{S} seq x {T} steps, K={K}, M={M}, float64"

    def ref_model(n_iter=1):
        m = H.CategoricalHMM(K, init_params="", n_iter=n_iter, tol=0.0, implementation="log")
        m.startprob_, m.transmat_, m.emissionprob_ = pi, A, B
        return m

    results = []
    # forward
    ll, compile_s, ours_s = time_jax(lambda: hmm.log_likelihood(params, X, lengths), repeats=3)
    ref_ll, ref_s = time_host(lambda: ref_model().score(X[:, None], lengths), repeats=ref_repeats)
    results.append(Result(
        benchmark="hmm", case=f"forward (log-likelihood), {case}", ours_s=ours_s, ref_s=ref_s,
        compile_s=compile_s, metric="log-likelihood", ours_quality=float(ll), ref_quality=ref_ll,
        reference="hmmlearn CategoricalHMM.score", agreement=f"d ll={float(ll) - ref_ll:+.1e}"))

    # one Baum-Welch iteration
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # one iteration does not converge
        fit, compile_s, ours_s = time_jax(
            lambda: fit_hmm(X, lengths, K, init=params, max_iter=1, tol=0.0), repeats=3)
        ref_fit, ref_s = time_host(lambda: ref_model().fit(X[:, None], lengths), repeats=ref_repeats)
    diff = max(float(np.abs(np.asarray(fit.transmat) - ref_fit.transmat_).max()),
               float(np.abs(np.asarray(fit.emissionprob) - ref_fit.emissionprob_).max()))
    results.append(Result(
        benchmark="hmm", case=f"Baum-Welch, one iteration, {case}", ours_s=ours_s, ref_s=ref_s,
        compile_s=compile_s, metric="log-likelihood", ours_quality=float(fit.log_likelihood),
        ref_quality=float(ref_fit.monitor_.history[-1]), reference="hmmlearn CategoricalHMM.fit",
        agreement=f"max |d param|={diff:.1e}"))

    # Viterbi
    (log_p, paths), compile_s, ours_s = time_jax(lambda: hmm.decode(params, X, lengths), repeats=3)
    (ref_lp, ref_path), ref_s = time_host(lambda: ref_model().decode(X[:, None], lengths),
                                          repeats=ref_repeats)
    same = float(np.mean(np.asarray(paths) == ref_path))
    d_lp = float(log_p) - ref_lp  # ties: different paths of equal probability
    results.append(Result(
        benchmark="hmm", case=f"Viterbi, {case}", ours_s=ours_s, ref_s=ref_s, compile_s=compile_s,
        metric="states equal", ours_quality=same, ref_quality=1.0,
        reference="hmmlearn CategoricalHMM.decode", agreement=f"{same:.4f} of states equal, d log p(z*)={d_lp:+.1e}"))
    return results


if __name__ == "__main__":
    import argparse

    from benchmarks.run import format_table

    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    print(format_table(run(parser.parse_args().quick)))
