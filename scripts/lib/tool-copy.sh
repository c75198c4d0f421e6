# shellcheck shell=bash
# tool_copy ROOT RESULTS BUILD [PACKAGE...]: installs what is missing (scripts/setup, with the packages named), finds
# a JDK 25, builds the jrdma tool and the report generators (benchmarks/) when BUILD is 1, and copies the tool to RESULTS/tool, which the VM runs, so that a rebuild
# while a measurement runs changes nothing under it. Sets RESULTS_DIR to RESULTS as an absolute path.
tool_copy() {
  local root=$1 results=$2 build=$3
  shift 3
  "$root/scripts/setup" "$@"
  # shellcheck source=jdk.sh
  . "$root/scripts/lib/jdk.sh"
  jrdma_find_jdk
  if [ "$build" = 1 ]; then
    # Built in the reactor, not installed.
    "$root/mvnw" -B -q -ntp -f "$root/pom.xml" -pl tool,benchmarks -am package -DskipTests -Djrdma.device.tier=skip
  fi
  mkdir -p "$results"
  RESULTS_DIR=$(cd "$results" && pwd)
  rm -rf "$RESULTS_DIR/tool"
  mkdir -p "$RESULTS_DIR/tool"
  cp -r "$root/tool/target/jrdma-tool.jar" "$root/tool/target/lib" "$RESULTS_DIR/tool/"
}

# netty_copy ROOT RESULTS: copies NettyPerf, benchmarks/' classes, and their runtime classpath (Netty 4.2 and its
# epoll library, jrdma-netty, jrdma-nio, and the tool, whose statistics it reports through) to RESULTS/netty, as
# tool_copy the tool (which builds benchmarks/).
netty_copy() {
  local root=$1 results=$2
  rm -rf "$results/netty"
  mkdir -p "$results/netty/lib"
  cp -r "$root/benchmarks/target/classes" "$results/netty/"
  tr ':' '\n' <"$root/benchmarks/target/jmh-classpath.txt" | grep '\.jar$' | xargs -r -I{} cp {} "$results/netty/lib/"
}

# report ROOT CLASS ARGS...: runs the report generator io.jrdma.benchmarks.report.CLASS of benchmarks/ as built.
report() {
  local root=$1 class=$2
  shift 2
  if [ ! -f "$root/benchmarks/target/jmh-classpath.txt" ]; then
    "$root/mvnw" -B -q -ntp -f "$root/pom.xml" -pl benchmarks -am package -DskipTests -Djrdma.device.tier=skip
  fi
  java -cp "$root/benchmarks/target/classes:$(cat "$root/benchmarks/target/jmh-classpath.txt")" \
    "io.jrdma.benchmarks.report.$class" "$@"
}
