"""Recorded traffic: capture format and facts, importers, record mode; the curated captures as package data."""
