"""BackendConfiguration: `[<backend>]` first, `[backend_defaults]` for what it leaves unset,
and the answer kept only while oslo.config keeps its values."""

from unittest import mock

from cinderlike import conf as cl_conf
from cinderlike.conf import volume as volume_conf
from cinderlike.drivers.volume import fake


def _parsed(tmp_path, text: str):
    path = tmp_path / 'cinderlike.conf'
    path.write_text(text)
    conf = cl_conf.new_conf()
    conf(['--config-file', str(path)], default_config_files=[])
    return conf, path


def test_unset_options_come_from_backend_defaults_and_set_ones_from_the_section(tmp_path):
    conf, _ = _parsed(tmp_path, '[backend_defaults]\nreserved_percentage = 7\n'
                                'max_over_subscription_ratio = 3.0\n'
                                '[b1]\nmax_over_subscription_ratio = 5.0\n')
    backend = volume_conf.register_backend(conf, 'b1', fake.DRIVER_OPTS)
    assert backend.reserved_percentage == 7
    assert backend.max_over_subscription_ratio == '5.0'
    assert backend.backend_stats_polling_interval == 60  # neither sets it: the default
    assert backend.fake_total_capacity_gb == 1000


def test_the_answer_is_looked_up_once_while_nothing_changes(tmp_path):
    conf, _ = _parsed(tmp_path, '[backend_defaults]\nreserved_percentage = 7\n')
    backend = volume_conf.register_backend(conf, 'b1', fake.DRIVER_OPTS)
    with mock.patch.object(conf, 'get_location', wraps=conf.get_location) as located:
        assert [backend.reserved_percentage for _ in range(5)] == [7] * 5
    assert located.call_count == 1


def test_overrides_and_defaults_set_later_change_the_answer_at_once(tmp_path):
    conf, _ = _parsed(tmp_path, '[backend_defaults]\nreserved_percentage = 7\n')
    backend = volume_conf.register_backend(conf, 'b1', fake.DRIVER_OPTS)
    assert backend.reserved_percentage == 7
    conf.set_override('fake_total_capacity_gb', 5, group='backend_defaults')
    assert (backend.reserved_percentage, backend.fake_total_capacity_gb) == (7, 5)
    conf.set_default('reserved_percentage', 4, group='b1')
    assert backend.reserved_percentage == 4
    # NOTE(edge): the section's override equals the option's default (0), so its value
    # alone cannot tell a set section from an unset one.
    conf.set_override('reserved_percentage', 0, group='b1')
    assert backend.reserved_percentage == 0


def test_a_reload_of_the_files_changes_the_answer(tmp_path):
    conf, path = _parsed(tmp_path, '[backend_defaults]\nfake_fail = create_volume\n')
    backend = volume_conf.register_backend(conf, 'b1', fake.DRIVER_OPTS)
    assert backend.fake_fail == ['create_volume']
    path.write_text('[backend_defaults]\nfake_fail = create_volume\n'
                    '[b1]\nfake_fail = delete_volume\n')
    conf.reload_config_files()
    assert backend.fake_fail == ['delete_volume']


def test_two_backends_keep_their_own_answers(tmp_path):
    conf, _ = _parsed(tmp_path, '[backend_defaults]\nreserved_percentage = 7\n'
                                '[b2]\nreserved_percentage = 2\n')
    b1 = volume_conf.register_backend(conf, 'b1', fake.DRIVER_OPTS)
    b2 = volume_conf.register_backend(conf, 'b2', fake.DRIVER_OPTS)
    assert (b1.reserved_percentage, b2.reserved_percentage) == (7, 2)
    assert (b1.reserved_percentage, b2.reserved_percentage) == (7, 2)


def test_without_oslo_configs_cache_every_read_looks_the_answer_up(tmp_path):
    conf, _ = _parsed(tmp_path, '[backend_defaults]\nreserved_percentage = 7\n')
    backend = volume_conf.register_backend(conf, 'b1', fake.DRIVER_OPTS)
    backend._kept = None
    with mock.patch.object(conf, 'get_location', wraps=conf.get_location) as located:
        assert [backend.reserved_percentage for _ in range(3)] == [7] * 3
    assert located.call_count == 3
