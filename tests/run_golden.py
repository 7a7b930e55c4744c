#!/usr/bin/env python3
"""Placeholder runner; replaced below."""
