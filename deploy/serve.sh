#!/bin/sh
# The Space image's server (Dockerfile CMD): the store prepared once, then $TANAW_SERVERS Streamlit processes (one
# per core by default) behind nginx on $PORT (7860). Every process reads .streamlit/config.toml, as `streamlit run
# app.py` does; the flags below are only what this deployment adds. They share the store file read-only between
# writes ($TANAW_SERVE_SHARED=1, store/serve.py), so the first start's work (registries, roll-ups, demo content,
# the CLI's inbox) is done here, before any of them serves.
set -eu
cd "$(dirname "$0")/.."
PORT="${PORT:-7860}"
SERVERS="${TANAW_SERVERS:-$(nproc)}"
FIRST="${TANAW_SERVER_PORT:-8501}"  # the processes listen on 127.0.0.1, ports FIRST, FIRST + 1, ...
RUN="${TANAW_RUN_DIR:-/tmp/tanaw-serve}"
# Extra nginx main directives: none in the image; `user root;` on a machine that runs this script as root, where
# nginx's workers would otherwise be `nobody` and could not read Streamlit's files.
GLOBAL="${TANAW_NGINX_GLOBAL:-}"
mkdir -p "$RUN"

if [ -z "${TANAW_PARQUET:-}" ]; then  # a Parquet export is served read-only by each process as it is
    python -c 'from services.startup import prepare_store
from store.db import connect, db_path
con = connect()
print("store:", prepare_store(con.cursor(), db_path()), flush=True)
con.close()'
fi

export TANAW_SERVE_SHARED=1
STATIC="$(python -c 'import os, streamlit; print(os.path.join(os.path.dirname(streamlit.__file__), "static", "static"))')"
UPSTREAMS=""
i=0
while [ "$i" -lt "$SERVERS" ]; do
    port=$((FIRST + i))
    # XSRF protection off: Spaces embed the app in an iframe on another domain, where Streamlit's XSRF cookie
    # breaks file uploads (Streamlit's Spaces example does the same).
    streamlit run app.py --server.port="$port" --server.address=127.0.0.1 --server.headless=true \
        --server.enableXsrfProtection=false &
    UPSTREAMS="$UPSTREAMS server 127.0.0.1:$port;"
    i=$((i + 1))
done
sed -e "s|@PORT@|$PORT|" -e "s|@UPSTREAMS@|$UPSTREAMS|" -e "s|@STATIC@|$STATIC|" -e "s|@RUN@|$RUN|g" \
    -e "s|@GLOBAL@|$GLOBAL|" \
    deploy/nginx.conf > "$RUN/nginx.conf"
exec nginx -e stderr -c "$RUN/nginx.conf" -g "daemon off;"
