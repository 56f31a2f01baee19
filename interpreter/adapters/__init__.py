"""Bridges to other tools: OpenSpiel (`openspiel`) and Ray (`ray_backend`), each an optional extra."""
