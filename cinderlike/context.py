"""Request context: who is calling, carried from the API through RPC into every daemon's logs."""

from oslo_context import context as oslo_context


class RequestContext(oslo_context.RequestContext):
    """oslo.context's context; is_admin follows Cinder's `context_is_admin` (role admin).

    Like Cinder's, it carries the project name and the token's service catalog over RPC:
    the volume service reaches Nova with the user's token (compute/nova.py).
    """

    def __init__(self, *args, is_admin=None, service_catalog=None, **kwargs):
        roles = kwargs.get('roles') or []
        if is_admin is None:
            is_admin = 'admin' in [r.lower() for r in roles]
        super().__init__(*args, is_admin=is_admin, **kwargs)
        self.service_catalog = service_catalog

    def to_dict(self):
        values = super().to_dict()
        values.update(is_admin=self.is_admin, project_name=self.project_name,
                      service_catalog=self.service_catalog)
        return values

    @classmethod
    def from_dict(cls, values, **kwargs):
        kwargs.setdefault('is_admin', values.get('is_admin'))
        kwargs.setdefault('service_catalog', values.get('service_catalog'))
        return super().from_dict(values, **kwargs)

    def elevated(self):
        """A copy with admin rights, for internal work on behalf of this request."""
        ctx = self.__class__.from_dict(self.to_dict())
        ctx.is_admin = True
        if 'admin' not in [r.lower() for r in ctx.roles]:
            ctx.roles = list(ctx.roles) + ['admin']
        return ctx


def get_admin_context() -> RequestContext:
    """The context daemons use for their own work (heartbeats, periodics, cleanup)."""
    return RequestContext(is_admin=True, roles=['admin'], overwrite=False)
