package io.jrdma.junit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a test class or method that needs a real RDMA device, and hands it an open
 * {@link io.jrdma.ibverbs.Context} (or the {@link io.jrdma.ibverbs.Device}) as a parameter.
 *
 * {@snippet class=io.jrdma.junit.snippets.RdmaDeviceTestSnippets region=annotation}
 *
 * <p>The device is {@link #device()}, else the {@value RdmaDeviceExtension#DEVICE_PROPERTY} system property, else
 * the {@value RdmaDeviceExtension#DEVICE_ENV} environment variable, else the first device. Inside the device tier
 * (system property {@value RdmaDeviceExtension#TIER_PROPERTY}{@code =true}) a missing device fails the test;
 * elsewhere it skips the test with the reason. Tests carry the JUnit tag {@code device}.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@Tag("device")
@ExtendWith(RdmaDeviceExtension.class)
public @interface RdmaDeviceTest {
    /**
     * The device name, e.g. {@code rxe0}; empty for the configured or first device.
     *
     * @return the device name, or empty
     */
    String device() default "";
}
