# Tanaw on a Hugging Face Docker Space (README front matter: sdk: docker, app_port: 7860).
# Build: docker build -t tanaw .            COMET-22 extra (brings torch): --build-arg WITH_COMET=1
#                                           MetricX-24 extra (brings torch): --build-arg WITH_METRICX=1
FROM python:3.11-slim-bookworm

ARG WITH_COMET=0
ARG WITH_METRICX=0
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# System packages in one layer: nginx, which puts the Streamlit processes behind one port (deploy/serve.sh,
# deploy/nginx.conf; not pinned, as Debian's security updates replace its version in place and a pin would break the
# build at the next one), and Noto fonts for the scripts beyond Latin (Thai, Tamil, Myanmar for Burmese, Khmer, Lao), so
# pages rendered inside the image (headless screenshots) show them rather than empty boxes.
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends nginx-light fonts-noto-core=20201225-1 \
    && rm -rf /var/lib/apt/lists/*

# Spaces run the container as uid 1000; give that user a home for the store and the Hub snapshots.
RUN useradd --create-home --uid 1000 user
WORKDIR /home/user/app

# Requirements first, in one layer, so a source change does not reinstall them.
COPY --chown=1000:1000 requirements*.txt ./
RUN pip install --no-cache-dir -r requirements.txt \
    && if [ "$WITH_COMET" = "1" ]; then pip install --no-cache-dir -r requirements-comet.txt; fi \
    && if [ "$WITH_METRICX" = "1" ]; then pip install --no-cache-dir -r requirements-metricx.txt; fi

# Streamlit's scripts and styles gzipped once here, served by nginx as they are (gzip_static): a fresh visitor
# downloads about a third of the bytes (3.3 MB, not 9.7), with no compression work per request.
RUN STATIC="$(python -c 'import os, streamlit; print(os.path.join(os.path.dirname(streamlit.__file__), "static", "static"))')" \
    && find "$STATIC" -type f \( -name '*.js' -o -name '*.css' -o -name '*.json' -o -name '*.svg' -o -name '*.ttf' \) \
        -exec gzip -k -9 {} +

COPY --chown=1000:1000 . .

USER 1000
# TANAW_HOME holds tanaw.duckdb and the Hub work folder (ephemeral on a Space unless /data storage is mounted).
# Set TANAW_RESULTS_REPO (variable) and HF_TOKEN (secret) in the Space settings to pull and push results.
ENV HOME=/home/user \
    TANAW_HOME=/home/user/.tanaw \
    STREAMLIT_BROWSER_GATHER_USAGE_STATS=false

# Optional: the public benchmark data from its own sources at pinned commits (`python -m evaluator data pull`)
# into $TANAW_HOME/data, the default data folder once present: uploads and runs score against it. On a Space add
# the variable WITH_DATA=1 (Space variables reach the build as build arguments); with docker: --build-arg
# WITH_DATA=1. Offline or failing, the build goes on with the demo items (a failed pull writes nothing).
ARG WITH_DATA=0
RUN if [ "$WITH_DATA" = "1" ]; then \
        if python -m evaluator data pull --no-progress; then rm -rf "$TANAW_HOME/cache/pull"; \
        else echo "data pull failed: the image keeps the demo items"; fi; \
    fi

# Optional: the PACUTE paper's own runs (about 50 models' per-item outputs) and its human baseline, from pacute-bench
# at the pinned commit (`python -m evaluator results pull pacute-paper`, every file checked against its manifest),
# ingested into the image's store so the PACUTE board shows them from the first start. Space variable
# WITH_PACUTE_RESULTS=1 (docker: --build-arg WITH_PACUTE_RESULTS=1); it pulls the PACUTE data first when WITH_DATA
# did not. Offline or failing, the build goes on without them.
ARG WITH_PACUTE_RESULTS=0
RUN if [ "$WITH_PACUTE_RESULTS" = "1" ]; then \
        if { [ -d "$TANAW_HOME/data/pacute" ] || python -m evaluator data pull --only pacute --no-progress; } \
            && python -m evaluator results pull pacute-paper --no-progress; then rm -rf "$TANAW_HOME/cache"; \
        else echo "results pull failed: the image starts without the PACUTE paper runs"; fi; \
    fi

EXPOSE 7860
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:7860/_stcore/health', timeout=4)"]

# One Streamlit process per core behind nginx on port 7860, all reading .streamlit/config.toml as `streamlit run
# app.py` does (deploy/serve.sh; TANAW_SERVERS sets the number of processes).
CMD ["sh", "deploy/serve.sh"]
