# gemini-emulator as a container: `docker run -p 127.0.0.1:8080:8080 gemini-emulator` (recipes: docs/container.md).
# Configure it with the GEMINI_EMULATOR_* variables (`docker run --rm gemini-emulator --help` lists them).

# Build stage: a venv with the runtime package and nothing else (no test extras, no build tools).
FROM python:3.12-slim AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
# `python3 -m venv`: the interpreter may be python.org's (/usr/local) or a distribution's (pip only in a venv).
RUN python3 -m venv /opt/gemini-emulator
WORKDIR /src
COPY pyproject.toml README.md ./
COPY emulator ./emulator
COPY engines ./engines
COPY captures ./captures
# The yaml extra lets a mounted script be YAML as well as JSON; the redis extra is `--store redis://...`'s client
# (deploy/compose.yaml). pip leaves the final venv: nothing installs there.
RUN /opt/gemini-emulator/bin/pip install '.[yaml,redis]' \
 && /opt/gemini-emulator/bin/pip uninstall --yes pip setuptools

# Final stage: the base image, the venv, a non-root user.
FROM python:3.12-slim
RUN useradd --uid 10001 --user-group --no-create-home --no-log-init --shell /usr/sbin/nologin emulator \
 && mkdir /scripts /captures \
 && chown emulator:emulator /scripts /captures
COPY --from=build /opt/gemini-emulator /opt/gemini-emulator
# 0.0.0.0 only here: inside a container the published port is the boundary; the program's own default is 127.0.0.1.
ENV PATH=/opt/gemini-emulator/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    GEMINI_EMULATOR_HOST=0.0.0.0 \
    GEMINI_EMULATOR_PORT=8080
USER 10001:10001
WORKDIR /scripts
EXPOSE 8080
# /scripts: script files (GEMINI_EMULATOR_SCRIPT=/scripts/entries.json); /captures: recordings for replay.
VOLUME ["/scripts", "/captures"]
# Healthy once the server answers its own health route on the port it was configured with.
HEALTHCHECK --interval=5s --timeout=3s --start-period=10s --retries=3 \
  CMD ["python3", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:' + os.environ.get('GEMINI_EMULATOR_PORT', '8080') + '/__emulator/health', timeout=2)"]
# Exec form: the server is PID 1 and gets SIGTERM itself (uvicorn stops gracefully on it).
ENTRYPOINT ["gemini-emulator"]
CMD ["serve"]
