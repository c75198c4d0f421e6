# shellcheck shell=bash
# tool_copy ROOT RESULTS BUILD: installs what is missing, finds a JDK 25, builds the jrdma tool when BUILD is 1, and
# copies it to RESULTS/tool, which the VM runs, so that a rebuild while a measurement runs changes nothing under it.
# Sets RESULTS_DIR to RESULTS as an absolute path.
tool_copy() {
  local root=$1 results=$2 build=$3
  "$root/scripts/setup"
  # shellcheck source=jdk.sh
  . "$root/scripts/lib/jdk.sh"
  jrdma_find_jdk
  if [ "$build" = 1 ]; then
    "$root/mvnw" -B -q -ntp -f "$root/pom.xml" -pl examples -am install -DskipTests
  fi
  mkdir -p "$results"
  RESULTS_DIR=$(cd "$results" && pwd)
  rm -rf "$RESULTS_DIR/tool"
  mkdir -p "$RESULTS_DIR/tool"
  cp -r "$root/examples/target/jrdma-examples.jar" "$root/examples/target/lib" "$RESULTS_DIR/tool/"
}
