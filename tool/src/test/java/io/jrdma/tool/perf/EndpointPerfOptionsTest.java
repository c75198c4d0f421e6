package io.jrdma.tool.perf;

import io.jrdma.endpoint.WorkerOptions;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.ParameterException;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class EndpointPerfOptionsTest {

    private static EndpointPerfOptions parse(String... args) {
        return Parsed.endpoint(List.of(args));
    }

    private static String refusal(String... args) {
        return assertThrows(ParameterException.class, () -> parse(args)).getMessage();
    }

    @Test
    void aPingPongKeepsOneMessageInFlightAndARateRunManyByDefault() {
        EndpointPerfOptions lat = parse("lat", "10.0.2.15");
        assertTrue(lat.latency());
        assertTrue(lat.client());
        assertEquals("10.0.2.15", lat.server());
        assertNull(lat.bind());
        assertEquals(List.of(64), lat.sizes());
        assertEquals(1000, lat.iterations(64));
        assertEquals(1, lat.depth());
        assertEquals(EndpointPerfOptions.DEFAULT_PORT, lat.port());
        assertEquals(PerfOptions.DEFAULT_WARMUP, lat.warmup());
        assertEquals("endpoint-lat", lat.label());
        EndpointPerfOptions rate = parse("rate", "-b", "10.0.2.15");
        assertFalse(rate.latency());
        assertFalse(rate.client());
        assertEquals(EndpointPerfOptions.DEFAULT_DEPTH, rate.depth());
        assertEquals(5000, rate.iterations(64));
        assertEquals(16, parse("rate", "-t", "16", "x").depth());
        assertEquals(EndpointPerfOptions.Api.HANDLER, rate.api());
        assertEquals(EndpointPerfOptions.Api.FUTURE, parse("rate", "--api", "future", "x").api());
        assertEquals(EndpointPerfOptions.Api.CONNECTION, parse("lat", "--api", "connection", "x").api());
    }

    @Test
    void sizesTakeTheirOwnCountsAndTheWarmupStopsAt64MiB() {
        EndpointPerfOptions o = parse("lat", "--sizes", "64:20000,4096,65536:1000", "-n", "300", "--warmup", "5000",
                "x");
        assertEquals(List.of(64, 4096, 65536), o.sizes());
        assertEquals(20000, o.iterations(64));
        assertEquals(300, o.iterations(4096));
        assertEquals(1000, o.iterations(65536));
        assertEquals(5000, o.warmup(64));
        assertEquals(1024, parse("lat", "--sizes", "65536", "x").warmup(65536));
        assertEquals(Map.of(64, 20000, 65536, 1000), o.counts());
        assertEquals(List.of(4096), parse("lat", "-s", "4096", "x").sizes());
    }

    @Test
    void theWorkersHaveACreditPerMessageInFlightAndNoKeepalive() {
        WorkerOptions w = parse("rate", "--sizes", "64,65536", "-t", "256", "x").workerOptions();
        assertEquals(65536, w.messageSize());
        assertEquals(256, w.credits());
        assertEquals(1, w.maxEndpoints());
        assertEquals(256 + 64, w.sendDepth());
        assertEquals(Duration.ZERO, w.keepalive());
        assertEquals(64, parse("lat", "-s", "8", "x").workerOptions().messageSize());
        assertEquals(32, parse("lat", "x").workerOptions().credits());
    }

    @Test
    void badOptionsAreUsageErrors() {
        assertEquals("TEST is lat or rate, not 'bw'", refusal("bw", "x"));
        assertEquals("--api is handler, future or connection, not 'callback'",
                refusal("rate", "--api", "callback", "x"));
        assertEquals("an RdmaConnection sends one message at a time: --api connection measures lat only",
                refusal("rate", "--api", "connection", "x"));
        assertEquals("the server listens on a device address: give it with -b", refusal("lat"));
        assertEquals("a ping-pong keeps one message in flight: -t must be 1", refusal("lat", "-t", "2", "x"));
        assertEquals("-s and --sizes each choose the sizes: give one of them",
                refusal("lat", "-s", "64", "--sizes", "64", "x"));
        assertEquals("--sizes names 64 twice", refusal("lat", "--sizes", "64,64", "x"));
        assertEquals("--sizes must be 5 to 100000000, not '2'", refusal("lat", "--sizes", "64:2", "x"));
        assertEquals("-t must be 1 to 4096, not 0", refusal("rate", "-t", "0", "x"));
        assertEquals("-p must be 1 to 65535, not 0", refusal("lat", "-p", "0", "x"));
        assertEquals("one server at most, not [a, b]", refusal("lat", "a", "b"));
    }
}
