/* jextract input for package io.jrdma.bindings.ibverbs */
#include <infiniband/verbs.h>
