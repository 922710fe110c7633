"""scikit-learn-compatible estimators over the functional core (needs ``jaxclassic[sklearn]``).

Each family adds its classes below, one import a line.
"""

__all__ = [
]
