"""Linear-chain CRF training vs python-crfsuite on the bundled CoNLL-2000 chunking data.

Data: ``load_conll2000_chunking()``, the first 700 sentences train and the last 200 test
(quick: the first 50 train, the last 20 test, at most 20 iterations), the features of the
data README (bias, POS, previous / next POS, previous|current POS pair; 792 attributes, 17
labels), c2 = 1, c1 = 0. float64 on both sides (crfsuite computes in double).

Cases:

* fit: ``fit_crf`` on the indexed, padded sequences (``index_features`` done once, outside
  the timing; sequences padded to 64 tokens, which the fit packs several to a row of 64)
  from zero weights to its stopping rule
  (gradient norm of the per-sequence objective <= 1e-3) vs ``pycrfsuite.Trainer.train``
  (its default stopping: relative objective decrease < 1e-5 over 10 iterations; the
  trainer's ``append`` of the sequences is outside the timing). Quality: token accuracy on
  the test sentences.
* per L-BFGS iteration: each side's fit time divided by its own iteration count (an
  iteration is one pass over the corpus for the value and gradient, plus the line search's
  extra passes), the "time per epoch" of the issue.

Ours: compile apart, median of 3 fits; crfsuite: median of 3. On a host with more than one
core the cases run again in a fresh process whose cores are JAX devices
(``jaxclassic.distributed.use_cpu_cores()``, issue 26): the packed rows are split over them.
"""

from __future__ import annotations

import os
import tempfile

import numpy as np

from benchmarks._harness import Result, last_cpu_use, on_cores, time_host, time_jax

__all__ = ["run"]


def run(quick: bool) -> list[Result]:
    import jax

    with jax.enable_x64(True):
        rows = _run(quick)
    return rows + on_cores("bench_crf", "_run", quick, x64=True)  # the CPU's cores as devices too


def _labels(chunks, code, T):
    y = np.zeros((len(chunks), T), np.int32)
    for i, s in enumerate(chunks):
        y[i, : len(s)] = [code[c] for c in s]
    return y


def _run(quick: bool, label: str = "") -> list[Result]:
    import jax.numpy as jnp
    import pycrfsuite

    from jaxclassic.datasets import load_conll2000_chunking
    from jaxclassic.graphical import crf
    from jaxclassic.graphical._crf_features import chunking_features, index_features

    pos, chunks = load_conll2000_chunking(return_X_y=True)
    n_train, n_test, max_iter = (50, 20, 20) if quick else (700, 200, 100)
    feats = [chunking_features(p) for p in pos]
    train_f, train_c = feats[:n_train], chunks[:n_train]
    test_f, test_c = feats[-n_test:], chunks[-n_test:]
    classes = sorted({c for s in train_c for c in s})
    code = {c: i for i, c in enumerate(classes)}
    T = 64
    X, lengths, vocab = index_features(train_f, max_length=T)
    y = _labels(train_c, code, T)
    X_test, l_test, _ = index_features(test_f, vocab, max_length=T)
    live = np.arange(T)[None, :] < l_test[:, None]
    truth = np.array([code.get(c, -1) for s in test_c for c in s])

    def ours():
        return crf.fit_crf(X, y, lengths=lengths, c2=1.0, n_labels=len(classes), max_iter=max_iter)

    params, compile_s, ours_s = time_jax(ours, repeats=3)
    ours_cpu = last_cpu_use()
    pred = np.asarray(crf.predict(params, jnp.asarray(X_test), jnp.asarray(l_test)))[live]
    ours_acc = float(np.mean(pred == truth))
    n_iter = int(params.n_iter)

    trainer = pycrfsuite.Trainer(verbose=False)
    for f, c in zip(train_f, train_c):
        trainer.append(pycrfsuite.ItemSequence(f), c)
    params_ref = {"c1": 0.0, "c2": 1.0}
    if quick:
        params_ref["max_iterations"] = max_iter
    trainer.set_params(params_ref)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.crfsuite")
        _, ref_s = time_host(lambda: trainer.train(path), repeats=3)
        ref_cpu = last_cpu_use()
        ref_iter = int(trainer.logparser.last_iteration["num"])  # the last run's iterations
        tagger = pycrfsuite.Tagger()
        tagger.open(path)
        tagged = [tagger.tag(pycrfsuite.ItemSequence(f)) for f in test_f]
        tagger.close()
    ref_acc = float(np.mean([a == b for p, c in zip(tagged, test_c) for a, b in zip(p, c)]))

    case = f"CoNLL-2000 chunking, {n_train} train / {n_test} test sentences, {len(vocab)} attributes, " \
           f"{len(classes)} labels, c2=1, float64{label}"
    return [
        Result(benchmark="crf", case=f"fit (L-BFGS to convergence), {case}", ours_s=ours_s, ref_s=ref_s,
               compile_s=compile_s, metric="token accuracy", ours_quality=ours_acc, ref_quality=ref_acc,
               reference="python-crfsuite Trainer.train (lbfgs)",
               agreement=f"iterations: ours {n_iter}, crfsuite {ref_iter}", ours_cpu=ours_cpu, ref_cpu=ref_cpu),
        Result(benchmark="crf", case=f"per L-BFGS iteration (one epoch + line search), {case}",
               ours_s=ours_s / max(n_iter, 1), ref_s=ref_s / ref_iter, compile_s=None,
               metric="token accuracy", ours_quality=ours_acc, ref_quality=ref_acc,
               reference="python-crfsuite Trainer.train (lbfgs)",
               agreement=f"iterations: ours {n_iter}, crfsuite {ref_iter}"),
    ]


if __name__ == "__main__":
    import argparse

    from benchmarks.run import format_table

    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    print(format_table(run(parser.parse_args().quick)))
