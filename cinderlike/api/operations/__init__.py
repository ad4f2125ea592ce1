"""cinderlike-api: business rules between the HTTP resources and db/.

Cinder's volume/api.py and volume_types.py, split by resource.
"""
