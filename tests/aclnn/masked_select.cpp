// aclnnMaskedSelect in the style of CANN's sample: a [4, 2] float self and
// a bool mask, out of the broadcast element count (8) prefilled with 10,
// the count of selected elements taken from the mask on the host as the
// sample does; then a uint8 row mask broadcast over the rows, and the
// first phase's rules (docs/ops.md §29).
#include <iostream>
#include <vector>
#include "acl/acl.h"
#include "aclnnop/aclnn_masked_select.h"
#include "common.h"

static int RunMaskedSelect(const aclTensor* self, const aclTensor* mask, aclTensor* out, aclrtStream stream)
{
    uint64_t workspaceSize = 0;
    aclOpExecutor* executor;
    auto ret = aclnnMaskedSelectGetWorkspaceSize(self, mask, out, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnMaskedSelectGetWorkspaceSize failed. ERROR: %d\n", ret); return ret);
    void* workspaceAddr = nullptr;
    if (workspaceSize > 0) {
        ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
        CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return ret);
    }
    ret = aclnnMaskedSelect(workspaceAddr, workspaceSize, executor, stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnMaskedSelect failed. ERROR: %d\n", ret); return ret);
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

    // 1. CANN's sample: the last four of 0..7 selected.
    std::vector<int64_t> selfShape = {4, 2}, maskShape = {4, 2}, outShape = {8};
    std::vector<float> selfHostData = {0, 1, 2, 3, 4, 5, 6, 7};
    std::vector<int8_t> maskHostData = {false, false, false, false, true, true, true, true};
    std::vector<float> outHostData(8, 10);
    void *selfDeviceAddr = nullptr, *maskDeviceAddr = nullptr, *outDeviceAddr = nullptr;
    aclTensor *self = nullptr, *mask = nullptr, *out = nullptr;
    ret = CreateAclTensor(selfHostData, selfShape, &selfDeviceAddr, aclDataType::ACL_FLOAT, &self);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(maskHostData, maskShape, &maskDeviceAddr, aclDataType::ACL_BOOL, &mask);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(outHostData, outShape, &outDeviceAddr, aclDataType::ACL_FLOAT, &out);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = RunMaskedSelect(self, mask, out, stream);
    CHECK_RET(ret == 0, return 1);
    int64_t count = 0;
    for (auto m : maskHostData) {
        count += m != 0;
    }
    std::vector<float> resultData(8, 0);
    ret = ReadBack(outDeviceAddr, resultData);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    for (int64_t i = 0; i < count; i++) {
        LOG_PRINT("result[%ld] is: %f\n", i, resultData[i]);
        CHECK_RET(resultData[i] == (float)(4 + i), LOG_PRINT("should be %f\n", (float)(4 + i)); return 1);
    }
    for (int64_t i = count; i < 8; i++) {
        CHECK_RET(resultData[i] == 10, LOG_PRINT("tail [%ld] changed: %f\n", i, resultData[i]); return 1);
    }

    // 2. A uint8 row mask {1, 0} broadcast over the 4 rows: the first column.
    void* rowAddr = nullptr;
    aclTensor* row = nullptr;
    ret = CreateAclTensor(std::vector<uint8_t>{1, 0}, std::vector<int64_t>{2}, &rowAddr, aclDataType::ACL_UINT8, &row);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = RunMaskedSelect(self, row, out, stream);
    CHECK_RET(ret == 0, return 1);
    ret = ReadBack(outDeviceAddr, resultData);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    CHECK_RET(resultData[0] == 0 && resultData[1] == 2 && resultData[2] == 4 && resultData[3] == 6,
              LOG_PRINT("row mask gave %f %f %f %f\n", resultData[0], resultData[1], resultData[2], resultData[3]);
              return 1);

    // 3. The first phase's rules and codes.
    uint64_t workspaceSize = 0;
    aclOpExecutor* unused = nullptr;
    void* smallAddr = nullptr;
    aclTensor* small = nullptr;
    ret = CreateAclTensor(std::vector<float>(4, 0), std::vector<int64_t>{4}, &smallAddr, aclDataType::ACL_FLOAT, &small);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = aclnnMaskedSelectGetWorkspaceSize(self, mask, small, &workspaceSize, &unused);
    CHECK_RET(ret == 161002 && unused == nullptr, LOG_PRINT("out of 4 for 8: %d\n", ret); return 1);
    ret = aclnnMaskedSelectGetWorkspaceSize(self, self, out, &workspaceSize, &unused);
    CHECK_RET(ret == 161002, LOG_PRINT("float mask: %d\n", ret); return 1);
    ret = aclnnMaskedSelectGetWorkspaceSize(self, small, out, &workspaceSize, &unused);
    CHECK_RET(ret == 161002, LOG_PRINT("a [4] float mask over [4, 2]: %d\n", ret); return 1);
    ret = aclnnMaskedSelectGetWorkspaceSize(self, nullptr, out, &workspaceSize, &unused);
    CHECK_RET(ret == 161001, LOG_PRINT("null mask: %d\n", ret); return 1);

    aclDestroyTensor(self);
    aclDestroyTensor(mask);
    aclDestroyTensor(out);
    aclDestroyTensor(row);
    aclDestroyTensor(small);
    aclrtFree(selfDeviceAddr);
    aclrtFree(maskDeviceAddr);
    aclrtFree(outDeviceAddr);
    aclrtFree(rowAddr);
    aclrtFree(smallAddr);
    aclrtDestroyStream(stream);
    aclrtResetDevice(deviceId);
    aclFinalize();
    LOG_PRINT("masked_select: ok\n");
    return 0;
}
