"""cinderlike-api: schema fragments shared by resources, as Cinder defines them."""

# NOTE(host): a Cinder host, not just a hostname: `host@backend#pool` and the colons
# and slashes some drivers use are allowed.
hostname = {
    'type': ['string', 'null'], 'minLength': 1, 'maxLength': 255,
    'pattern': '^[a-zA-Z0-9-._#@:/+]*$',
}

nullable_string = {'type': ('string', 'null'), 'minLength': 0, 'maxLength': 255}
