"""Measuring the camera reader on the project's own renders: scenes with known truth,
squares counted right, wrong and unread. The reader never imports this package."""
