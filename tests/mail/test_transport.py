"""SMTP transport against a real aiosmtpd server: success, 4xx, 5xx, drops, TLS, login."""

from __future__ import annotations

from email.message import EmailMessage

import pytest

from service.mail.server_url import ConfigError
from service.outbound.transport import DeliveryError, SmtpTransport, parse_smtp_url
from tests.mail.smtp_server import DROP, SmtpServer, free_port
from tests.mail.tls import self_signed, server_context


def _message(subject: str = "Round 1 results") -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = "dicepost <play@dicepost.test>"
    msg["To"] = "alice@example.org"
    msg["Subject"] = subject
    msg["Message-ID"] = "<g1.results.abc@dicepost.test>"
    msg.set_content("A1 moved to c3.\n")
    return msg


def _send(url: str, msg: EmailMessage | None = None) -> None:
    SmtpTransport.from_url(url).send(msg or _message(), "play@dicepost.test", "alice@example.org")


def test_plain_smtp_delivers_the_message_as_composed():
    with SmtpServer() as server:
        _send(f"smtp://127.0.0.1:{server.port}")
    assert len(server.received) == 1
    got = server.received[0]
    assert got.sender == "play@dicepost.test"
    assert got.recipients == ["alice@example.org"]
    assert got.message["Message-ID"] == "<g1.results.abc@dicepost.test>"
    assert "A1 moved to c3." in got.message.get_content()


def test_4xx_is_temporary_and_the_retry_succeeds():
    with SmtpServer() as server:
        server.handler.script = ["451 4.3.0 mailbox busy, try later"]
        with pytest.raises(DeliveryError) as err:
            _send(f"smtp://127.0.0.1:{server.port}")
        assert err.value.temporary
        assert "451" in str(err.value)
        _send(f"smtp://127.0.0.1:{server.port}")
    assert len(server.received) == 1


def test_5xx_is_permanent():
    with SmtpServer() as server:
        server.handler.script = ["550 5.1.1 no such user"]
        with pytest.raises(DeliveryError) as err:
            _send(f"smtp://127.0.0.1:{server.port}")
    assert not err.value.temporary
    assert "550" in str(err.value)
    assert server.received == []


def test_drop_after_data_is_temporary():
    with SmtpServer() as server:
        server.handler.script = [DROP]
        with pytest.raises(DeliveryError) as err:
            _send(f"smtp://127.0.0.1:{server.port}")
        assert err.value.temporary
        assert server.handler.attempts == 1


def test_connection_refused_is_temporary():
    with pytest.raises(DeliveryError) as err:
        _send(f"smtp://127.0.0.1:{free_port()}?timeout=5")
    assert err.value.temporary
    assert "refused" in str(err.value)


def test_starttls_with_login(tmp_path):
    cert, key = self_signed(tmp_path)
    with SmtpServer(tls=server_context(cert, key), login=("dp", "s3cret/?")) as server:
        _send(f"smtp://dp:s3cret%2F%3F@127.0.0.1:{server.port}?starttls=1&cafile={cert}")
        # Without STARTTLS the server offers no login: the operator's to fix, so retried.
        with pytest.raises(DeliveryError) as err:
            _send(f"smtp://dp:s3cret%2F%3F@127.0.0.1:{server.port}")
        assert err.value.temporary and "SMTP_URL" in str(err.value)
        # Without STARTTLS and login, MAIL FROM gets a 530: retried too.
        with pytest.raises(DeliveryError) as err:
            _send(f"smtp://127.0.0.1:{server.port}")
        assert err.value.temporary and "530" in str(err.value) and "check SMTP_URL" in str(err.value)
    assert len(server.received) == 1


def test_wrong_login_is_temporary_so_the_operator_can_fix_it(tmp_path):
    cert, key = self_signed(tmp_path)
    with SmtpServer(tls=server_context(cert, key), login=("dp", "right")) as server, \
            pytest.raises(DeliveryError) as err:
        _send(f"smtp://dp:wrong@127.0.0.1:{server.port}?starttls=1&cafile={cert}")
    assert err.value.temporary
    assert "login failed" in str(err.value)
    assert server.received == []


def test_smtps_implicit_tls(tmp_path):
    cert, key = self_signed(tmp_path)
    with SmtpServer(tls=server_context(cert, key), implicit_tls=True) as server:
        _send(f"smtps://127.0.0.1:{server.port}?cafile={cert}")
    assert len(server.received) == 1


def test_untrusted_certificate_is_refused(tmp_path):
    cert, key = self_signed(tmp_path)
    with SmtpServer(tls=server_context(cert, key), implicit_tls=True) as server, \
            pytest.raises(DeliveryError) as err:
        _send(f"smtps://127.0.0.1:{server.port}?timeout=5")
    assert err.value.temporary
    assert server.received == []


@pytest.mark.parametrize("url", ["http://x", "smtp://", "smtps://h?starttls=1", "smtp://h:notaport"])
def test_bad_urls_are_config_errors(url):
    with pytest.raises(ConfigError):
        parse_smtp_url(url)


def test_url_defaults():
    s = parse_smtp_url("smtps://u%40x:p@mail.example.org")
    assert (s.host, s.port, s.tls, s.starttls, s.username, s.password) == (
        "mail.example.org", 465, True, False, "u@x", "p")
    assert parse_smtp_url("smtp://h").port == 25
