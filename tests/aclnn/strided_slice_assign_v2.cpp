// aclnnStridedSliceAssignV2 in the style of CANN's sample: a [4, 3] float
// varRef, inputValue {-1, -2, -3, -4} written at rows 1 and 3, columns 0
// and 1 (begin {1, 0}, end {4, 2}, strides {2, 1}, axes {0, 1};
// docs/ops.md §35), every element checked; then a null axesOptional (the
// default axes) with a negative begin; then the first phase's rules: a
// stride of 2 on the last axis, an inputValue of the wrong shape, a null
// begin.
#include <iostream>
#include <vector>
#include "acl/acl.h"
#include "aclnnop/aclnn_strided_slice_assign_v2.h"
#include "common.h"

static aclIntArray* Arr(std::vector<int64_t> v)
{
    return aclCreateIntArray(v.data(), v.size());
}

static int Assign(aclrtStream stream, aclTensor* var, aclTensor* value, aclIntArray* b, aclIntArray* e,
                  aclIntArray* st, aclIntArray* axes)
{
    uint64_t workspaceSize = 0;
    aclOpExecutor* executor;
    auto ret = aclnnStridedSliceAssignV2GetWorkspaceSize(var, value, b, e, st, axes, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS,
              LOG_PRINT("aclnnStridedSliceAssignV2GetWorkspaceSize failed. ERROR: %d\n", ret);
              return ret);
    void* workspaceAddr = nullptr;
    if (workspaceSize > 0) {
        ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
        CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return ret);
    }
    ret = aclnnStridedSliceAssignV2(workspaceAddr, workspaceSize, executor, stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnStridedSliceAssignV2 failed. ERROR: %d\n", ret); return ret);
    ret = aclrtSynchronizeStream(stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret); return ret);
    if (workspaceAddr != nullptr) {
        aclrtFree(workspaceAddr);
    }
    return 0;
}

int main()
{
    int32_t deviceId = 0;
    aclrtStream stream;
    auto ret = Init(deviceId, &stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("Init acl failed. ERROR: %d\n", ret); return ret);

    std::vector<int64_t> varShape = {4, 3}, valueShape = {2, 2};
    void *varAddr = nullptr, *valueAddr = nullptr;
    aclTensor *var = nullptr, *value = nullptr;
    std::vector<float> varData = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, valueData = {-1, -2, -3, -4};
    ret = CreateAclTensor(varData, varShape, &varAddr, aclDataType::ACL_FLOAT, &var);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(valueData, valueShape, &valueAddr, aclDataType::ACL_FLOAT, &value);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    aclIntArray *begin = Arr({1, 0}), *end = Arr({4, 2}), *strides = Arr({2, 1}), *axes = Arr({0, 1});
    ret = Assign(stream, var, value, begin, end, strides, axes);
    CHECK_RET(ret == 0, return ret);
    std::vector<float> got(12, 0);
    ret = ReadBack(varAddr, got);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("copy result failed. ERROR: %d\n", ret); return ret);
    std::vector<float> want = {0, 1, 2, -1, -2, 5, 6, 7, 8, -3, -4, 11};
    for (int i = 0; i < 12; i++) {
        CHECK_RET(got[i] == want[i], LOG_PRINT("var[%d] is %f, should be %f\n", i, got[i], want[i]); return 1);
    }

    // The default axes (null axesOptional) and a negative begin: row -2
    // (row 2) from {-1, -2, -3} in a [1, 3] value.
    std::vector<int64_t> rowShape = {1, 3};
    void* rowAddr = nullptr;
    aclTensor* row = nullptr;
    std::vector<float> rowData = {-5, -6, -7};
    ret = CreateAclTensor(rowData, rowShape, &rowAddr, aclDataType::ACL_FLOAT, &row);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    aclIntArray *b2 = Arr({-2}), *e2 = Arr({3}), *s2 = Arr({1});
    ret = Assign(stream, var, row, b2, e2, s2, nullptr);
    CHECK_RET(ret == 0, return ret);
    ret = ReadBack(varAddr, got);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    want[6] = -5;
    want[7] = -6;
    want[8] = -7;
    for (int i = 0; i < 12; i++) {
        CHECK_RET(got[i] == want[i], LOG_PRINT("var[%d] is %f, should be %f\n", i, got[i], want[i]); return 1);
    }

    // The first phase's rules (no executor written).
    uint64_t workspaceSize = 0;
    aclOpExecutor* unused = nullptr;
    aclIntArray *lastTwo = Arr({1, 2}), *bad = Arr({0, 0}), *ends = Arr({4, 3});
    ret = aclnnStridedSliceAssignV2GetWorkspaceSize(var, value, bad, ends, lastTwo, axes, &workspaceSize, &unused);
    CHECK_RET(ret == 161002 && unused == nullptr, LOG_PRINT("stride 2 on the last axis: %d\n", ret); return 1);
    ret = aclnnStridedSliceAssignV2GetWorkspaceSize(var, row, begin, end, strides, axes, &workspaceSize, &unused);
    CHECK_RET(ret == 161002 && unused == nullptr, LOG_PRINT("value of the wrong shape: %d\n", ret); return 1);
    ret = aclnnStridedSliceAssignV2GetWorkspaceSize(var, value, nullptr, end, strides, axes, &workspaceSize, &unused);
    CHECK_RET(ret == 161001, LOG_PRINT("null begin: %d\n", ret); return 1);

    aclDestroyTensor(var);
    aclDestroyTensor(value);
    aclDestroyTensor(row);
    for (aclIntArray* a : {begin, end, strides, axes, b2, e2, s2, lastTwo, bad, ends}) {
        aclDestroyIntArray(a);
    }
    aclrtFree(varAddr);
    aclrtFree(valueAddr);
    aclrtFree(rowAddr);
    aclrtDestroyStream(stream);
    aclrtResetDevice(deviceId);
    aclFinalize();
    LOG_PRINT("strided_slice_assign_v2: ok\n");
    return 0;
}
