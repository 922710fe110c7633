"""A spy on the width a tree fit is grown at (the narrow-first tests of trees and forests)."""


def record_widths(monkeypatch, module, name):
    """Replace ``module.name`` (a fit taking ``max_width=``) by a wrapper that records each
    call's ``max_width``; returns the list it appends to."""
    widths = []
    real = getattr(module, name)

    def spy(*args, max_width, **kwargs):
        widths.append(max_width)
        return real(*args, max_width=max_width, **kwargs)

    monkeypatch.setattr(module, name, spy)
    return widths
