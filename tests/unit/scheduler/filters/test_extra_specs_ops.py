"""Every extra-spec operator of CapabilitiesFilter, table-driven."""

import pytest

from cinderlike.scheduler.filters.extra_specs_ops import match


@pytest.mark.parametrize('value, req, expected', [
    ('lvm', 'lvm', True), ('lvm', 'LVM', False), ('1', '1', True), (1, '1', False),
    ('a b', 'a b', True), ('x', 'unknownop x', False),
    (None, None, True), ('x', None, False), (None, '= 1', False), (None, 'plain', False),
    ('10', '= 5', True), ('5', '= 5', True), ('4', '= 5', False), ('x', '= 5', False),
    (10, '== 10.0', True), ('10', '== 11', False),
    ('10', '!= 11', True), ('10', '!= 10', False),
    ('10', '>= 10', True), ('9', '>= 10', False),
    ('10', '<= 10', True), ('11', '<= 10', False),
    ('abc', 's== abc', True), ('abc', 's== abd', False),
    ('abc', 's!= abd', True), ('abc', 's!= abc', False),
    ('abc', 's< abd', True), ('abd', 's< abc', False),
    ('abc', 's<= abc', True), ('abd', 's<= abc', False),
    ('abd', 's> abc', True), ('abc', 's> abd', False),
    ('abc', 's>= abc', True), ('abc', 's>= abd', False),
    ('ssd fast', '<in> ssd', True), ('hdd', '<in> ssd', False),
    ('ssd', '<in> ssd extra', True),                       # only the first word is used
    (True, '<is> True', True), ('true', '<is> True', True), ('False', '<is> True', False),
    (False, '<is> False', True), ('yes', '<is> 1', True),
    ('b', '<or> a <or> b <or> c', True), ('d', '<or> a <or> b <or> c', False),
    ('a', '<or> a', True), ('b', '<or> a b', False),
    ('aes vmx sse', '<all-in> aes vmx', True), ('aes sse', '<all-in> aes vmx', False),
    (['aes', 'vmx'], '<all-in> aes vmx', True), (['aes'], '<all-in> aes vmx', False),
    ('anything', '<all-in>', False),
    (['iSCSI', 'iscsi'], 'iscsi', True), (['iSCSI', 'iscsi'], 'FC', False),
    (['hdd', 'ssd'], '<in> ss', True), ([1, 5], '>= 3', True), ([1, 2], '>= 3', False),
    (['a', 'b'], '<or> x <or> b', True),
    (5, '<in> 5', False), (None, '<in> x', False),
])
def test_match(value, req, expected):
    assert match(value, req) is expected
