// aclnnStridedSlice as CANN's sample calls it (its page: self {4, 3} float,
// begin {1, 1}, end {3, 3}, strides {1, 1}, every mask 0, out {2, 2}).
// CANN documents the operator for Ascend 950 only and its op_api refuses
// every other product with 161002 ("only supports ASCEND950"); the
// simulator models none of the 950 family, so the program checks exactly
// what an A2 or A3 host gives: it builds and links with CANN's line, the
// first phase returns 161002 without an executor, null arguments 161001
// (docs/ops.md §32).
#include <iostream>
#include <vector>
#include "acl/acl.h"
#include "aclnnop/aclnn_strided_slice.h"
#include "common.h"

int main()
{
    int32_t deviceId = 0;
    aclrtStream stream;
    auto ret = Init(deviceId, &stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("Init acl failed. ERROR: %d\n", ret); return ret);
    std::vector<int64_t> selfShape = {4, 3}, outShape = {2, 2};
    std::vector<float> selfHostData = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, outHostData(4, 0);
    void *selfAddr = nullptr, *outAddr = nullptr;
    aclTensor *self = nullptr, *out = nullptr;
    ret = CreateAclTensor(selfHostData, selfShape, &selfAddr, aclDataType::ACL_FLOAT, &self);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(outHostData, outShape, &outAddr, aclDataType::ACL_FLOAT, &out);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    std::vector<int64_t> beginData = {1, 1}, endData = {3, 3}, stridesData = {1, 1};
    aclIntArray* begin = aclCreateIntArray(beginData.data(), 2);
    aclIntArray* end = aclCreateIntArray(endData.data(), 2);
    aclIntArray* strides = aclCreateIntArray(stridesData.data(), 2);
    uint64_t workspaceSize = 0;
    aclOpExecutor* executor = nullptr;
    ret = aclnnStridedSliceGetWorkspaceSize(self, begin, end, strides, 0, 0, 0, 0, 0, out, &workspaceSize, &executor);
    CHECK_RET(ret == 161002 && executor == nullptr,
              LOG_PRINT("expected 161002 (Ascend 950 only), got %d\n", ret); return 1);
    const char* msg = aclGetRecentErrMsg();
    CHECK_RET(msg != nullptr && std::string(msg).find("ASCEND950") != std::string::npos,
              LOG_PRINT("the message does not name Ascend 950: %s\n", msg ? msg : "(null)"); return 1);
    ret = aclnnStridedSliceGetWorkspaceSize(self, nullptr, end, strides, 0, 0, 0, 0, 0, out, &workspaceSize,
                                            &executor);
    CHECK_RET(ret == 161001, LOG_PRINT("null begin: %d\n", ret); return 1);
    aclDestroyIntArray(begin);
    aclDestroyIntArray(end);
    aclDestroyIntArray(strides);
    aclDestroyTensor(self);
    aclDestroyTensor(out);
    aclrtFree(selfAddr);
    aclrtFree(outAddr);
    aclrtDestroyStream(stream);
    aclrtResetDevice(deviceId);
    aclFinalize();
    LOG_PRINT("strided_slice: refused with 161002 as on every product but Ascend 950\n");
    return 0;
}
