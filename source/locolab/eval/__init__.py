"""Evaluation of exported policies outside the training simulator."""
