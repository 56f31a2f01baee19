"""`boardrules.openspiel.load`: the OpenSpiel adapter under the name the issue asked for (see adapters/)."""

from .adapters.openspiel import load, register

__all__ = ["load", "register"]
