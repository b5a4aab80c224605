"""v1919_env: Versailles 1919 as a fast, exact reinforcement-learning environment."""
from .cards import CardDataError, CardSet, load_card_set

__version__ = "0.1.0"
__all__ = ["CardDataError", "CardSet", "load_card_set", "__version__"]
