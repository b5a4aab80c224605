"""Policies that pick an action from (observation, action mask)."""
