#!/usr/bin/env bash
# Build the documentation site (docs/README.md): set up .venv with the docs extra (first run
# only), then `mkdocs build --strict` into build/site; a broken link, a missing reference or a
# generated table that cannot be made fails the build. Extra arguments go to mkdocs.
#   bash scripts/docs.sh                 # build, then open build/site/index.html (works from disk)
#   bash scripts/docs.sh -d /tmp/site    # build elsewhere
#   bash scripts/docs.sh serve           # serve at http://127.0.0.1:8000, rebuilt on every edit
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup_env.sh dev sb3 ray docs
export NO_MKDOCS_2_WARNING=1   # mkdocs-material's notice about its successor, printed on every run
if [ "${1:-}" = "serve" ]; then
    shift
    exec .venv/bin/mkdocs serve --strict "$@"
fi
site=build/site
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
    case "${args[i]}" in
        -d|--site-dir) site=${args[i + 1]:-$site} ;;
        --site-dir=*) site=${args[i]#*=} ;;
    esac
done
start=$(date +%s)
.venv/bin/mkdocs build --strict "$@"
echo "docs built in $(( $(date +%s) - start )) s: $(cd "$site" && pwd)/index.html"
