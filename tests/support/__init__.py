"""What the tests (and the benches) share: their databases (databases.py), the apps they
start (apps.py), forms posted with their CSRF token (forms.py), game documents and what a
store holds (games.py), and the walks of the URL map (walk.py)."""
