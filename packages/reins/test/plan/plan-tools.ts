import { z } from 'zod';
import { codeWhitelist, defineTool, ToolError, type AnyTool } from 'reins';

/** Seed 001's claims example: policies, medical records by hospital code, sending a policy. */
export function claimsTools() {
  const calls: { tool: string; input: unknown; at: number }[] = [];
  const findPolicy = defineTool({
    name: 'find_policy',
    description: 'Find the latest active policy of an insured person.',
    input: z.object({ insured: z.string().min(1) }),
    output: z.strictObject({
      policy_no: z.string(),
      insured_name: z.string(),
      status: z.enum(['active', 'expired']),
    }),
    readOnly: true,
    run: (input) => {
      calls.push({ tool: 'find_policy', input, at: Date.now() });
      return {
        policy_no: input.insured === '张三' ? 'P2024001' : 'P2024999',
        insured_name: input.insured,
        status: 'active' as const,
      };
    },
  });
  const sendPolicy = defineTool({
    name: 'send_policy',
    description: 'Send a policy document to a person.',
    input: z.object({ policy_no: z.string().regex(/^P\d{7}$/), to: z.string().min(1) }),
    output: z.strictObject({ sent: z.boolean(), policy_no: z.string() }),
    readOnly: true, // a test double: no approval needed
    run: (input) => {
      calls.push({ tool: 'send_policy', input, at: Date.now() });
      return { sent: true, policy_no: input.policy_no };
    },
  });
  const medicalRecords = defineTool({
    name: 'query_medical_record',
    description: 'Hospital stays of a patient at one hospital (by hospital code).',
    input: z.object({ patient_id: z.string().min(1), hospital_code: z.string().min(1) }),
    output: z.strictObject({ stays: z.number().int() }),
    readOnly: true,
    run: (input) => {
      calls.push({ tool: 'query_medical_record', input, at: Date.now() });
      if (!/^[A-Z]{4}\d{3}$/.test(input.hospital_code))
        throw new ToolError('INVALID_PARAMETER', 'unknown hospital code');
      return { stays: 2 };
    },
  });
  const tools: AnyTool[] = [findPolicy, sendPolicy, medicalRecords];
  return { tools, calls };
}

export const HOSPITALS = [
  { value: 'BJXH001', label: '北京协和医院', aliases: ['协和', '北京协和'] },
  { value: 'WHXH001', label: '武汉协和医院', aliases: ['协和', '武汉协和'] },
  { value: 'FZXH001', label: '福州协和医院', aliases: ['协和', '福州协和'] },
  { value: 'BJDY001', label: '北京大学第一医院', aliases: ['北大医院'] },
];

export const hospitalCodes = codeWhitelist({
  name: 'hospital_codes',
  field: 'hospital_code',
  actions: ['query_medical_record'],
  noun: 'hospital',
  codes: HOSPITALS,
});

export const plan = (steps: unknown[], thought = 'planning'): string => JSON.stringify({ thought, steps });
export const step = (
  id: string,
  action: string,
  input: Record<string, unknown>,
  dependsOn: string[] = [],
) => ({
  id,
  action,
  input,
  dependsOn,
});
