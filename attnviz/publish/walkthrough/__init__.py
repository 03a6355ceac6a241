"""Walkthroughs: a figure step by step (scores, FlashAttention tiles, KV-cache decoding, heads)."""
