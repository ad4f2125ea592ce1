"""The one error hierarchy: each family carries Cinder's HTTP code and message wording."""


class CinderlikeException(Exception):
    """Base: `msg_fmt % kwargs` is the message; `code` is the HTTP status the API answers."""

    msg_fmt = 'An unknown exception occurred.'
    code = 500
    safe = False

    def __init__(self, message=None, **kwargs):
        self.kwargs = kwargs
        if message is None:
            try:
                message = self.msg_fmt % kwargs
            except (KeyError, TypeError):
                message = self.msg_fmt
        self.msg = str(message)
        super().__init__(self.msg)


# --- 400 -------------------------------------------------------------------

class Invalid(CinderlikeException):
    """The request is well-formed but cannot be honoured."""
    msg_fmt = 'Unacceptable parameters.'
    code = 400
    safe = True


class InvalidInput(Invalid):
    """A request field has a bad value."""
    msg_fmt = 'Invalid input received: %(reason)s'


class InvalidHost(Invalid):
    """No such host/service pair."""
    msg_fmt = 'Invalid host: %(reason)s'


class MalformedRequestUrl(Invalid):
    """The project in the URL is not the token's project."""
    msg_fmt = 'Malformed request url'


class InvalidGlobalAPIVersion(CinderlikeException):
    """OpenStack-API-Version outside the supported range."""
    msg_fmt = ('Version %(req_ver)s is not supported by the API. Minimum is %(min_ver)s '
               'and maximum is %(max_ver)s.')
    code = 406
    safe = True


class ValidationError(Invalid):
    """A request body does not match its JSON schema."""
    msg_fmt = '%(detail)s'


class InvalidAPIVersionString(Invalid):
    """OpenStack-API-Version could not be parsed."""
    msg_fmt = ('API Version String %(version)s is of invalid format. Must be of format '
               'MajorNum.MinorNum.')


# --- 401 / 403 -------------------------------------------------------------

class NotAuthorized(CinderlikeException):
    """The caller may not do this."""
    msg_fmt = 'Not authorized.'
    code = 403
    safe = True


class PolicyNotAuthorized(NotAuthorized):
    """oslo.policy refused the action."""
    msg_fmt = "Policy doesn't allow %(action)s to be performed."


# --- 404 -------------------------------------------------------------------

class NotFound(CinderlikeException):
    """The resource does not exist (or is not visible to the caller)."""
    msg_fmt = 'Resource could not be found.'
    code = 404
    safe = True


class ServiceNotFound(NotFound):
    """No service row matches; Cinder names the host when the lookup had one."""
    msg_fmt = 'Service %(service_id)s could not be found.'

    def __init__(self, message=None, **kwargs):
        if message is None and kwargs.get('host'):
            message = (f"Service {kwargs.get('service_id')} could not be found on host "
                       f"{kwargs['host']}.")
        super().__init__(message, **kwargs)


class ClusterNotFound(NotFound):
    """No cluster row matches."""
    msg_fmt = 'Cluster %(id)s could not be found.'


# --- 409 -------------------------------------------------------------------

class Conflict(CinderlikeException):
    """The resource's current state does not allow the request."""
    msg_fmt = 'Conflict.'
    code = 409
    safe = True


# --- 413 -------------------------------------------------------------------

class OverQuota(CinderlikeException):
    """A quota would be exceeded."""
    msg_fmt = 'Quota exceeded for resources: %(overs)s'
    code = 413
    safe = True


class RequestTooLarge(CinderlikeException):
    """The request body is larger than `osapi_max_request_body_size`."""
    msg_fmt = 'Request is too large.'
    code = 413
    safe = True


# --- daemons ---------------------------------------------------------------

class ServiceTooOld(CinderlikeException):
    """A peer service speaks an older RPC version than the call needs."""
    msg_fmt = 'Service is too old to fulfil this request.'


class DBMigrationError(CinderlikeException):
    """A database schema migration failed or was asked something impossible."""
    msg_fmt = 'Database migration failed: %(reason)s'


class VolumeDriverNotFound(NotFound):
    """`volume_driver` names no cinderlike volume driver."""
    msg_fmt = 'Volume driver %(name)s could not be found.'


class NoEnabledBackends(Invalid):
    """cinderlike-volume was started without `enabled_backends`."""
    msg_fmt = ('Configuration for cinderlike-volume does not specify "enabled_backends". '
               'Using DEFAULT section to configure drivers is not supported.')


# --- scheduler -------------------------------------------------------------

class NoValidBackend(CinderlikeException):
    """No backend passed the filters, or every candidate's capacity claim failed."""
    msg_fmt = 'No valid backend was found. %(reason)s'


class SchedulerHostFilterNotFound(NotFound):
    """scheduler_default_filters names a filter that does not exist."""
    msg_fmt = 'Scheduler Host Filter %(filter_name)s could not be found.'


class SchedulerHostWeigherNotFound(NotFound):
    """scheduler_default_weighers names a weigher that does not exist."""
    msg_fmt = 'Scheduler Host Weigher %(weigher_name)s could not be found.'


class EvaluatorParseException(CinderlikeException):
    """A filter_function/goodness_function does not parse or cannot be evaluated."""
    msg_fmt = 'Error during evaluator parsing: %(reason)s'
