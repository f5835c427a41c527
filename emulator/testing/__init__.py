"""For test authors: the pytest plugin (fixtures), the in-process server, the SDK environment variables."""
