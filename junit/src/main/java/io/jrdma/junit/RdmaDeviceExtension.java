package io.jrdma.junit;

import io.jrdma.ibverbs.Context;
import io.jrdma.ibverbs.Device;
import io.jrdma.ibverbs.RdmaException;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.platform.commons.support.AnnotationSupport;

import java.util.List;
import java.util.Optional;

/**
 * The extension behind {@link RdmaDeviceTest}: decides whether a device test runs, and opens the device
 * {@link Context} it asks for (closed after the test).
 *
 * {@snippet class=io.jrdma.junit.snippets.RdmaDeviceTestSnippets region=extension}
 */
public final class RdmaDeviceExtension implements ExecutionCondition, ParameterResolver {
    /** System property naming the device to use. */
    public static final String DEVICE_PROPERTY = "jrdma.device";
    /** Environment variable naming the device to use. */
    public static final String DEVICE_ENV = "JRDMA_DEVICE";
    /** System property that is {@code true} inside the device tier. */
    public static final String TIER_PROPERTY = "jrdma.device.tier";

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(RdmaDeviceExtension.class);

    /** JUnit makes it, through {@code @ExtendWith(RdmaDeviceExtension.class)} or {@link RdmaDeviceTest}. */
    public RdmaDeviceExtension() {
    }

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        String wanted = deviceName(context);
        Optional<String> missing = whyMissing(wanted);
        if (missing.isEmpty()) {
            return ConditionEvaluationResult.enabled("RDMA device " + describe(wanted) + " present");
        }
        if (inDeviceTier()) {
            // The tier exists to run these tests: a missing device is the tier's failure, never a skip.
            throw new ExtensionConfigurationException("device tier: " + missing.get());
        }
        return ConditionEvaluationResult.disabled(missing.get()
                + "; device tests run in the device tier (scripts/softroce-vm, or mvn verify)");
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext extension) {
        Class<?> type = parameter.getParameter().getType();
        return type == Context.class || type == Device.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext extension) {
        String wanted = deviceName(extension);
        try {
            if (parameter.getParameter().getType() == Device.class) {
                return Device.list().stream().filter(d -> wanted.isEmpty() || d.name().equals(wanted)).findFirst()
                        .orElseThrow(() -> new ParameterResolutionException("no RDMA device " + describe(wanted)));
            }
            Context ctx = wanted.isEmpty() ? Context.openFirst() : Context.open(wanted);
            extension.getStore(NAMESPACE).put(parameter.getIndex() + "@" + extension.getUniqueId(),
                    (AutoCloseable) ctx::close);
            return ctx;
        } catch (RdmaException e) {
            throw new ParameterResolutionException("cannot open RDMA device " + describe(wanted) + ": " + e.getMessage(), e);
        }
    }

    static boolean inDeviceTier() {
        return Boolean.getBoolean(TIER_PROPERTY);
    }

    private static String deviceName(ExtensionContext context) {
        Optional<RdmaDeviceTest> annotation = context.getElement()
                .flatMap(e -> AnnotationSupport.findAnnotation(e, RdmaDeviceTest.class))
                .filter(a -> !a.device().isEmpty())
                .or(() -> context.getTestClass().flatMap(c -> AnnotationSupport.findAnnotation(c, RdmaDeviceTest.class)));
        if (annotation.isPresent() && !annotation.get().device().isEmpty()) {
            return annotation.get().device();
        }
        String property = System.getProperty(DEVICE_PROPERTY, "");
        return property.isEmpty() ? Optional.ofNullable(System.getenv(DEVICE_ENV)).orElse("") : property;
    }

    /** Why the wanted device is not there, or empty when it is. */
    private static Optional<String> whyMissing(String wanted) {
        List<Device> devices;
        try {
            devices = Device.list();
        } catch (RdmaException e) {
            return Optional.of("no RDMA device " + describe(wanted) + ": " + e.getMessage()
                    + ("ENOSYS".equals(e.errnoName()) ? " (this kernel has no RDMA support)" : ""));
        } catch (LinkageError | IllegalArgumentException e) {
            return Optional.of("no RDMA device " + describe(wanted) + ": libibverbs.so.1 cannot be loaded (" + e + ")");
        }
        if (devices.stream().anyMatch(d -> wanted.isEmpty() || d.name().equals(wanted))) {
            return Optional.empty();
        }
        return Optional.of("no RDMA device " + describe(wanted) + " among " + devices.stream().map(Device::name).toList());
    }

    private static String describe(String wanted) {
        return wanted.isEmpty() ? "(any)" : "'" + wanted + "'";
    }
}
