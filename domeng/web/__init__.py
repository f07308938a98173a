"""The browser table (``domeng serve``, docs/web.md): a Starlette server
(:mod:`domeng.web.server`) around tables (:mod:`domeng.web.table`) and a
static page (``static/``: HTML, CSS, plain JavaScript; no build step, nothing
from the internet).  Needs the ``web`` extra: ``pip install 'domeng[web]'``."""
