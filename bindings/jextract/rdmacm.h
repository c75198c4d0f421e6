/* jextract input for package io.jrdma.bindings.rdmacm */
#include <rdma/rdma_cma.h>
