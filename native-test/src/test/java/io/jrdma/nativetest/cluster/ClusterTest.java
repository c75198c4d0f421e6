package io.jrdma.nativetest.cluster;

import io.jrdma.junit.RdmaDeviceExtension;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A test that runs on node 1 of a Soft-RoCE cluster (scripts/softroce-cluster) and drives the other nodes through
 * {@link ClusterNode}: the device tier's cluster stage runs these, with {@code routed} ones on a cluster whose nodes
 * are one IP hop apart. Like a device test, it gets the local {@code Context} as a parameter.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Tag("cluster")
@ExtendWith(RdmaDeviceExtension.class)
@interface ClusterTest {
}
