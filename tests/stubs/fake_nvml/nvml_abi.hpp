// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The NVML types the stand-in library needs, spelt as nvml.h spells them (names, values and
// layouts from research/vendor-apis.md). Written apart from src/sensors/nvml/api.hpp on
// purpose, so that each is checked on its own against the documented layouts.
#include <cstddef>

enum nvmlReturn_t : unsigned int {
    NVML_SUCCESS = 0,
    NVML_ERROR_UNINITIALIZED = 1,
    NVML_ERROR_INVALID_ARGUMENT = 2,
    NVML_ERROR_NOT_SUPPORTED = 3,
    NVML_ERROR_INSUFFICIENT_SIZE = 7,
    NVML_ERROR_GPU_IS_LOST = 15,
    NVML_ERROR_UNKNOWN = 999,
};
enum nvmlValueType_t : unsigned int {
    NVML_VALUE_TYPE_DOUBLE = 0,
    NVML_VALUE_TYPE_UNSIGNED_INT = 1,
    NVML_VALUE_TYPE_UNSIGNED_LONG = 2,
    NVML_VALUE_TYPE_UNSIGNED_LONG_LONG = 3,
    NVML_VALUE_TYPE_SIGNED_LONG_LONG = 4,
    NVML_VALUE_TYPE_SIGNED_INT = 5,
    NVML_VALUE_TYPE_UNSIGNED_SHORT = 6,
};
constexpr unsigned int NVML_FI_DEV_POWER_AVERAGE = 185;
constexpr unsigned int NVML_FI_DEV_POWER_INSTANT = 186;

struct nvmlDevice_st {
    unsigned int index;
};
using nvmlDevice_t = nvmlDevice_st*;
struct nvmlPciInfo_t {
    char busIdLegacy[16];
    unsigned int domain;
    unsigned int bus;
    unsigned int device;
    unsigned int pciDeviceId;
    unsigned int pciSubSystemId;
    char busId[32];
};
struct nvmlUtilization_t {
    unsigned int gpu;
    unsigned int memory;
};
union nvmlValue_t {
    double dVal;
    int siVal;
    unsigned int uiVal;
    unsigned long ulVal;
    unsigned long long ullVal;
    signed long long sllVal;
    unsigned short usVal;
};
struct nvmlFieldValue_t {
    unsigned int fieldId;
    unsigned int scopeId;
    long long timestamp;
    long long latencyUsec;
    nvmlValueType_t valueType;
    nvmlReturn_t nvmlReturn;
    nvmlValue_t value;
};
struct nvmlProcessInfo_t { // v2, what nvmlDeviceGetComputeRunningProcesses_v3 fills
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId;
    unsigned int computeInstanceId;
};
static_assert(sizeof(nvmlProcessInfo_t) == 24);
static_assert(sizeof(nvmlPciInfo_t) == 68 && offsetof(nvmlPciInfo_t, busId) == 36);
static_assert(sizeof(nvmlFieldValue_t) == 40 && offsetof(nvmlFieldValue_t, value) == 32);
static_assert(sizeof(nvmlUtilization_t) == 8);
