# Sourced by the scripts: finds a JDK 25+ and exports JAVA_HOME and PATH for it.
# Order: $JAVA_HOME, the `java` on PATH, then the JDKs under /usr/lib/jvm (newest first).

jrdma_java_feature() { # prints the feature version of the JDK at $1 (e.g. 25), or nothing
  [ -x "$1/bin/java" ] && [ -x "$1/bin/javac" ] || return 0
  "$1/bin/java" -XshowSettings:properties -version 2>&1 \
    | sed -n 's/^ *java\.specification\.version = \([0-9][0-9]*\).*/\1/p' | head -n 1
}

jrdma_find_jdk() {
  local candidates=() dir v
  [ -n "${JAVA_HOME:-}" ] && candidates+=("$JAVA_HOME")
  if command -v javac >/dev/null 2>&1; then
    candidates+=("$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")")
  fi
  for dir in $(ls -d /usr/lib/jvm/*/ 2>/dev/null | sort -rV); do candidates+=("${dir%/}"); done
  for dir in "${candidates[@]}"; do
    v=$(jrdma_java_feature "$dir")
    if [ -n "$v" ] && [ "$v" -ge 25 ]; then
      export JAVA_HOME="$dir" PATH="$dir/bin:$PATH"
      echo "jrdma: using JDK $v at $JAVA_HOME" >&2
      return 0
    fi
  done
  cat >&2 <<'MSG'
jrdma: no JDK 25 or newer found (looked at $JAVA_HOME, the java on PATH and /usr/lib/jvm/*).
  Install one, e.g. Temurin 25 (https://adoptium.net) or your distribution's openjdk-25-jdk,
  then run again or point JAVA_HOME at it.
MSG
  return 1
}
