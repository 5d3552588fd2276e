"""Where avenir-mcp keeps its state: a checkout's `.local/` and `db.sqlite3` as always, an installed
copy's one home folder, or AVENIR_MCP_HOME (avenir_mcp/avenir_site/home_folder.py,
avenir_mcp/avenir_site/settings.py)."""

from __future__ import annotations

from avenir_mcp.avenir_site.home_folder import Home, env_file, home_of


def test_a_checkout_keeps_its_state_beside_manage_py(tmp_path):
    (tmp_path / "manage.py").write_text("")

    assert home_of(tmp_path, "") == Home(tmp_path / ".local", tmp_path / "db.sqlite3")


def test_an_installed_copy_keeps_everything_in_the_users_data_folder(tmp_path, monkeypatch):
    site_packages = tmp_path / "site-packages"
    monkeypatch.setenv("HOME", str(tmp_path / "person"))
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)

    folder = tmp_path / "person" / ".local" / "share" / "avenir-mcp"
    assert home_of(site_packages, "") == Home(folder, folder / "db.sqlite3")


def test_avenir_mcp_home_is_the_one_folder_wherever_the_code_is(tmp_path):
    (tmp_path / "manage.py").write_text("")

    chosen = tmp_path / "state"
    assert home_of(tmp_path, str(chosen)) == Home(chosen, chosen / "db.sqlite3")


def test_settings_sit_beside_manage_py_in_a_checkout_and_in_the_home_folder_installed(tmp_path, monkeypatch):
    checkout, site_packages = tmp_path / "checkout", tmp_path / "site-packages"
    checkout.mkdir()
    (checkout / "manage.py").write_text("")
    monkeypatch.setenv("HOME", str(tmp_path / "person"))
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)

    assert env_file(checkout, str(tmp_path / "state")) == checkout / ".env"
    assert env_file(site_packages, "") == tmp_path / "person" / ".local" / "share" / "avenir-mcp" / ".env"
    assert env_file(site_packages, str(tmp_path / "state")) == tmp_path / "state" / ".env"
